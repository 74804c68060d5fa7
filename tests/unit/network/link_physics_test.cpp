// One message on idle links: the packet model must reproduce the alpha-beta
// cost exactly (cut-through chunks), and agree with the analytical mode.
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

// 4 rail-optimised servers of 8 GPUs, two per leaf group: NVLink, same-leaf,
// cross-rail and cross-group paths all exist.
models::network::ClusterGraph rails() {
  return models::network::build_cluster(test::server(8, 8), test::fabric(models::TopologyKind::rail_optimized, 4, 2));
}

core::SimTime alpha_beta(const models::network::ClusterGraph& g, const Transfer& t, std::uint32_t flow) {
  models::network::Path path;
  models::network::route(g, t.src, t.dst, flow, path);
  return models::network::transfer_time(models::network::path_stats(g, path), static_cast<double>(t.bytes));
}

class IdleTransfer : public ::testing::TestWithParam<NetworkMode> {};

TEST_P(IdleTransfer, CostsLatencyPlusBytesOverBottleneck) {
  const models::network::ClusterGraph g = rails();
  // NVLink, same leaf (rail 0), cross-rail (via a spine), other leaf group.
  const std::vector<Transfer> paths{{0, 1, 48 << 20}, {0, 8, 48 << 20}, {0, 9, 48 << 20}, {0, 16, 48 << 20}};
  for (std::size_t i = 0; i < paths.size(); ++i) {
    test::TransferRig rig(g, test::net_config(GetParam()));
    const core::SimTime t = rig.run({paths[i]})[0];
    const core::SimTime expected = alpha_beta(g, paths[i], 0);
    // One rounding of at most half a picosecond per chunk and hop.
    EXPECT_NEAR(static_cast<double>(t.ps), static_cast<double>(expected.ps), 48.0 * 8) << "path " << i;
  }
}

TEST_P(IdleTransfer, TimeGrowsLinearlyInBytes) {
  const models::network::ClusterGraph g = rails();
  test::TransferRig rig(g, test::net_config(GetParam()));
  const core::SimTime latency = rig.run({{0, 16, 0}})[0];
  const double t1 = static_cast<double>((rig.run({{0, 16, 32 << 20}})[0] - latency).ps);
  const double t2 = static_cast<double>((rig.run({{0, 16, 64 << 20}})[0] - latency).ps);
  EXPECT_GT(latency, core::SimTime::zero());
  EXPECT_NEAR(t2 / t1, 2.0, 1e-6);
}

INSTANTIATE_TEST_SUITE_P(Modes, IdleTransfer, ::testing::Values(NetworkMode::packet, NetworkMode::analytical),
                         mode_name);

TEST(CutThrough, ChunkSizeDoesNotChangeAnIdleTransfer) {
  const models::network::ClusterGraph g = rails();
  test::TransferRig small(g, test::net_config(NetworkMode::packet, 64 << 10));
  test::TransferRig large(g, test::net_config(NetworkMode::packet, 8 << 20));
  const Transfer t{0, 17, 64 << 20};  // cross-group, cross-rail: 6 hops
  const core::SimTime a = small.run({t})[0];
  const core::SimTime b = large.run({t})[0];
  EXPECT_NEAR(static_cast<double>(a.ps), static_cast<double>(b.ps), 1024.0 * 6);
  EXPECT_GT(small.events(), 50 * large.events() / 8);  // the small chunks really were simulated
}

// A NIC with one GPU behind it and one uplink relays what that GPU sends:
// the chunk takes the uplink in the GPU's own event (Network::
// mark_relayed_links); on the receiving side the leaf takes the NIC's no
// slower link to its GPU in its own event (mark_delivering_links). On idle
// links the message arrives exactly when it does through NICs shared by two
// GPUs, which handle each chunk in an event of their own: two events per
// chunk fewer, nothing else.
TEST(CutThrough, ANicWithOneGpuRelaysInTheSendersEvent) {
  const auto shape = test::fabric(models::TopologyKind::rail_optimized, 4, 2);
  const models::network::ClusterGraph own = models::network::build_cluster(test::server(8, 8), shape);
  const models::network::ClusterGraph shared = models::network::build_cluster(test::server(8, 4), shape);
  const Transfer t{0, 16, 8 << 20};  // 8 chunks of 1 MiB to the other leaf group, same rail
  test::TransferRig relayed(own, test::net_config(NetworkMode::packet));
  test::TransferRig handled(shared, test::net_config(NetworkMode::packet));
  EXPECT_EQ(relayed.run({t})[0], handled.run({t})[0]);
  EXPECT_EQ(handled.events() - relayed.events(), 16u);
}

TEST(CutThrough, EmptyMessagePaysTheLatency) {
  const models::network::ClusterGraph g = rails();
  test::TransferRig rig(g, test::net_config(NetworkMode::packet));
  EXPECT_EQ(rig.run({{0, 16, 0}})[0], alpha_beta(g, {0, 16, 0}, 0));
}

TEST(LinkCounters, EveryLinkOnThePathCarriesTheMessage) {
  const models::network::ClusterGraph g = rails();
  test::TransferRig rig(g, test::net_config(NetworkMode::packet));
  const Transfer t{0, 16, 10 << 20};
  rig.run({t});
  models::network::Path path;
  models::network::route(g, t.src, t.dst, 0, path);
  std::uint64_t total = 0;
  for (models::network::LinkId l = 0; l < g.link_count(); ++l) total += rig.network().counters(l).bytes;
  EXPECT_EQ(total, t.bytes * static_cast<std::uint64_t>(path.hops));
  for (models::network::LinkId l : path.view()) {
    const models::network::LinkCounters& c = rig.network().counters(l);
    EXPECT_EQ(c.bytes, t.bytes);
    EXPECT_EQ(c.chunks, 10u);
    EXPECT_NEAR(static_cast<double>(c.busy_ps), static_cast<double>(t.bytes) / g.link(l).bandwidth_Bps * 1e12, 10.0);
  }
}

}  // namespace
}  // namespace pf
