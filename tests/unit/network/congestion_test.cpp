// Congestion emerges from the port FIFOs: incast, shared sender ports and
// oversubscribed uplinks, in packet mode; the analytical mode ignores them.
#include <gtest/gtest.h>

#include "models/network/routing.h"
#include "tests/unit/network/test_cluster.h"

namespace pf {
namespace {

using models::NetworkMode;
using test::Transfer;

std::string mode_name(const ::testing::TestParamInfo<NetworkMode>& p) {
  return p.param == NetworkMode::packet ? "packet" : "analytical";
}

constexpr std::uint64_t kBytes = 64 << 20;

// Single-GPU servers on one switch: every transfer crosses one NIC each way.
models::network::ClusterGraph single_gpu_servers(int nodes) {
  return models::network::build_cluster(test::server(1, 1), test::fabric(models::TopologyKind::single_switch, nodes));
}

double nic_Bps(const models::network::ClusterGraph& g) { return g.shape().nic_Bps; }

core::SimTime latest(const std::vector<core::SimTime>& times) { return *std::max_element(times.begin(), times.end()); }

TEST(Incast, EightToOneTakesEightTransfers) {
  const models::network::ClusterGraph g = single_gpu_servers(9);
  test::TransferRig rig(g, test::net_config(NetworkMode::packet));
  const double one = static_cast<double>(rig.run({{1, 0, kBytes}})[0].ps);
  std::vector<Transfer> incast;
  for (int s = 1; s <= 8; ++s) incast.push_back({s, 0, kBytes});
  const double eight = static_cast<double>(latest(rig.run(incast)).ps);
  EXPECT_NEAR(eight / one, 8.0, 8.0 * 0.02);
  // Exactly: the receiver's port drains 8S at line rate after one latency.
  models::network::Path path;
  models::network::route(g, 1, 0, 0, path);
  const double expected = static_cast<double>(models::network::path_stats(g, path).latency.ps) + 8e12 * kBytes / nic_Bps(g);
  EXPECT_NEAR(eight, expected, expected * 1e-3);

  // The queue builds at the receiver's downlink: about 7 of the 8 messages wait.
  const models::network::LinkId down = models::network::ClusterGraph::reverse(g.nic_leaf_link(0));
  const auto peak = static_cast<double>(rig.network().counters(down).peak_queue_bytes);
  EXPECT_GT(peak, 6.0 * kBytes);
  EXPECT_LT(peak, 8.0 * kBytes);
}

TEST(Incast, AnalyticalModeDoesNotShareTheReceiver) {
  const models::network::ClusterGraph g = single_gpu_servers(9);
  test::TransferRig rig(g, test::net_config(NetworkMode::analytical));
  const core::SimTime one = rig.run({{1, 0, kBytes}})[0];
  std::vector<Transfer> incast;
  for (int s = 1; s <= 8; ++s) incast.push_back({s, 0, kBytes});
  EXPECT_EQ(latest(rig.run(incast)), one);  // the documented limit of the alpha-beta model
}

class SharedSender : public ::testing::TestWithParam<NetworkMode> {};

TEST_P(SharedSender, TwoMessagesFromOnePortTakeTwiceAsLong) {
  const models::network::ClusterGraph g = single_gpu_servers(3);
  test::TransferRig rig(g, test::net_config(GetParam()));
  const double one = static_cast<double>(rig.run({{0, 1, kBytes}})[0].ps);
  const double two = static_cast<double>(latest(rig.run({{0, 1, kBytes}, {0, 2, kBytes}})).ps);
  EXPECT_NEAR(two / one, 2.0, 0.02);
}

INSTANTIATE_TEST_SUITE_P(Modes, SharedSender, ::testing::Values(NetworkMode::packet, NetworkMode::analytical),
                         mode_name);

TEST(SharedSender, InterleavedMessagesFinishTogether) {
  const models::network::ClusterGraph g = single_gpu_servers(3);
  test::TransferRig rig(g, test::net_config(NetworkMode::packet));
  const std::vector<core::SimTime> t = rig.run({{0, 1, kBytes}, {0, 2, kBytes}});
  // Chunks alternate on the port, so neither message waits for the other.
  EXPECT_NEAR(static_cast<double>(t[0].ps), static_cast<double>(t[1].ps), static_cast<double>(t[1].ps) * 0.01);
}

// Two servers per leaf, two leaves, one GPU and NIC each; destination-based
// routing (D-mod-k) so flows to distinct ports take distinct spines.
double cross_leaf_time(double oversubscription) {
  models::TopologySpec topo = test::fabric(models::TopologyKind::fat_tree, 4, 2, oversubscription);
  topo.routing = models::Routing::single_path;
  const models::network::ClusterGraph g = models::network::build_cluster(test::server(1, 1), topo);
  test::TransferRig rig(g, test::net_config(NetworkMode::packet));
  return static_cast<double>(latest(rig.run({{0, 2, kBytes}, {1, 3, kBytes}})).ps);
}

TEST(Oversubscription, TwoToOneLeafHalvesCrossLeafThroughput) {
  EXPECT_NEAR(cross_leaf_time(2.0) / cross_leaf_time(1.0), 2.0, 0.04);
}

}  // namespace
}  // namespace pf
