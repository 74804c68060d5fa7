// Analytical mode's share of a NIC that several GPUs sit behind (nic_share.h)
// against packet mode, where the NIC's port queues what they send.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "models/network/nic_share.h"
#include "models/network/routing.h"
#include "tests/unit/network/test_cluster.h"

namespace pf {
namespace {

using models::NetworkMode;
using test::Transfer;

constexpr std::uint64_t kBytes = 64 << 20;

// Two servers of 8 GPUs on one switch, `nics` NICs each.
models::network::ClusterGraph two_servers(int nics) {
  return models::network::build_cluster(test::server(8, nics), test::fabric(models::TopologyKind::single_switch, 2));
}

// Every GPU of server 0 sends to its counterpart on server 1, all at once:
// what the data-parallel rings of a TP-sharded model do at each step.
std::vector<Transfer> every_gpu_across() {
  std::vector<Transfer> t;
  for (int g = 0; g < 8; ++g) t.push_back({g, g + 8, kBytes});
  return t;
}

double latest(const std::vector<core::SimTime>& times) {
  return static_cast<double>(std::max_element(times.begin(), times.end())->ps);
}

TEST(NicShare, AnalyticalModeSplitsASharedNicAsPacketModeQueuesIt) {
  const auto g = two_servers(4);
  test::TransferRig packet(g, test::net_config(NetworkMode::packet));
  test::TransferRig analytical(g, test::net_config(NetworkMode::analytical));
  const double p = latest(packet.run(every_gpu_across()));
  const double a = latest(analytical.run(every_gpu_across()));
  EXPECT_NEAR(a / p, 1.0, 0.03) << "analytical " << a << " ps, packet " << p << " ps";
  // Each NIC carries two messages: twice one message over an unshared NIC.
  const double nic_s = static_cast<double>(kBytes) / g.shape().nic_Bps;
  EXPECT_NEAR(a * 1e-12 / (2 * nic_s), 1.0, 0.03);
}

TEST(NicShare, ANicPerGpuIsNotShared) {
  const auto g = two_servers(8);
  const models::network::NicShare share(g, 0);
  EXPECT_FALSE(share.shared());
  EXPECT_TRUE(std::isinf(share.cap_Bps(0, 8)));
  test::TransferRig packet(g, test::net_config(NetworkMode::packet));
  test::TransferRig analytical(g, test::net_config(NetworkMode::analytical));
  EXPECT_NEAR(latest(analytical.run(every_gpu_across())) / latest(packet.run(every_gpu_across())), 1.0, 0.03);
}

TEST(NicShare, OnlyTheRunsGpusShareAndNeverInsideAServer) {
  const auto g = two_servers(4);
  const double nic = g.link(g.nic_leaf_link(0)).bandwidth_Bps;
  const models::network::NicShare all(g, 0);
  EXPECT_TRUE(all.shared());
  EXPECT_DOUBLE_EQ(all.cap_Bps(0, 8), nic / 2);
  EXPECT_TRUE(std::isinf(all.cap_Bps(0, 1)));  // NVLink, no NIC on the way
  // The first 8 GPUs run: server 0's NICs serve two each, server 1's none.
  const models::network::NicShare first8(g, 8);
  EXPECT_DOUBLE_EQ(first8.cap_Bps(0, 8), nic / 2);
  // A run of one GPU shares nothing.
  const models::network::NicShare first1(g, 1);
  EXPECT_FALSE(first1.shared());
}

}  // namespace
}  // namespace pf
