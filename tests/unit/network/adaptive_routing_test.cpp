// topology.routing: adaptive in packet mode: a chunk at a time over the
// least-loaded equal-cost port. An idle transfer still costs exactly the
// alpha-beta time (the chunks reassemble at the destination); an all-to-all
// across leaves of a non-blocking fabric reaches >= 90 % of the bound the NIC
// links set, where hashed ECMP loses to flow collisions; failed links are
// never used; the message table empties.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "models/network/faults.h"
#include "models/network/routing.h"
#include "tests/unit/network/test_cluster.h"

namespace pf {
namespace {

using models::NetworkMode;
using models::Routing;
using models::TopologyKind;

// 8 servers of 4 GPUs and 4 NICs, one server a leaf, non-blocking: 8 leaves of
// 4 uplinks each, to 4 spines.
models::TopologySpec fabric(Routing routing) {
  models::TopologySpec t = test::fabric(TopologyKind::fat_tree, 8, 1);
  t.routing = routing;
  return t;
}

core::SimTime latest(const std::vector<core::SimTime>& t) { return *std::max_element(t.begin(), t.end()); }

TEST(AdaptiveRouting, AnIdleTransferCostsLatencyPlusBytesOverBottleneck) {
  const models::network::ClusterGraph g = models::network::build_cluster(test::server(4, 4), fabric(Routing::adaptive));
  const models::network::ClusterGraph ecmp = models::network::build_cluster(test::server(4, 4), fabric(Routing::ecmp));
  for (std::uint64_t bytes : {std::uint64_t{1000}, std::uint64_t{1} << 20, std::uint64_t{37} << 20}) {
    test::TransferRig rig(g, test::net_config(NetworkMode::packet, 256 << 10));
    test::TransferRig reference(ecmp, test::net_config(NetworkMode::packet, 256 << 10));
    const core::SimTime adaptive = rig.run({{0, 9, bytes}})[0];
    EXPECT_EQ(adaptive.ps, reference.run({{0, 9, bytes}})[0].ps) << bytes << " bytes";
  }
}

TEST(AdaptiveRouting, CrossLeafAllToAllReachesTheNicBound) {
  const std::uint64_t bytes = 4 << 20;
  double efficiency[2] = {0, 0};
  for (Routing routing : {Routing::ecmp, Routing::adaptive}) {
    const models::network::ClusterGraph g = models::network::build_cluster(test::server(4, 4), fabric(routing));
    test::TransferRig rig(g, test::net_config(NetworkMode::packet, 256 << 10));
    const std::vector<test::Transfer> t = test::cross_leaf_all_to_all(g, bytes);
    const double time = latest(rig.run(t)).seconds();
    // The bound: each GPU's NIC sends (and receives) 28 messages at NIC speed.
    const double nic_Bps = g.link(g.nic_leaf_link(0)).bandwidth_Bps;
    const double bound = 28.0 * static_cast<double>(bytes) / nic_Bps;
    efficiency[routing == Routing::adaptive] = bound / time;
  }
  std::printf("cross-leaf all-to-all, 32 GPUs over 4 spines: %.1f %% of the NIC bound with ECMP, %.1f %% adaptive\n",
              100 * efficiency[0], 100 * efficiency[1]);
  EXPECT_GE(efficiency[1], 0.90) << "adaptive";
  EXPECT_LT(efficiency[0], efficiency[1] - 0.05) << "ECMP's collisions should cost it: ecmp " << efficiency[0]
                                                  << ", adaptive " << efficiency[1];
}

TEST(AdaptiveRouting, FailedLinksAreNeverChosen) {
  const models::TopologySpec t = fabric(Routing::adaptive);
  models::network::ClusterGraph g = models::network::build_cluster(test::server(4, 4), t);
  models::FaultSpec f;
  f.target = models::FaultTarget::switch_vertex;
  f.src = "spine1";
  f.failed = true;
  models::network::apply_faults(g, {f}, t);
  test::TransferRig rig(g, test::net_config(NetworkMode::packet, 256 << 10));
  rig.run(test::cross_leaf_all_to_all(g, 1 << 20));
  const models::network::VertexId spine = models::network::vertex_by_name(g, "spine1");
  std::uint64_t carried = 0;
  for (models::network::LinkId l = 0; l < g.link_count(); ++l) {
    if (g.link(l).src == spine || g.link(l).dst == spine) {
      EXPECT_EQ(rig.network().counters(l).bytes, 0u) << l;
    }
    if (g.link(l).cls == models::network::LinkClass::leaf_to_spine) carried += rig.network().counters(l).bytes;
  }
  EXPECT_GT(carried, 0u);
}

TEST(AdaptiveRouting, ChunksOfEveryMessageReassembleOnce) {
  const models::network::ClusterGraph g = models::network::build_cluster(test::server(4, 4), fabric(Routing::adaptive));
  test::TransferRig rig(g, test::net_config(NetworkMode::packet, 64 << 10));
  const std::vector<test::Transfer> t = test::cross_leaf_all_to_all(g, (3 << 20) + 12345);
  const std::vector<core::SimTime> done = rig.run(t);
  // Every message delivered once, none before its bytes could cross its own NIC.
  const double nic_Bps = g.link(g.nic_leaf_link(0)).bandwidth_Bps;
  for (std::size_t i = 0; i < t.size(); ++i) {
    ASSERT_NE(done[i], core::SimTime::infinity()) << "message " << i;
    EXPECT_GE(done[i].seconds(), static_cast<double>(t[i].bytes) / nic_Bps);
  }
  EXPECT_EQ(rig.network().messages_in_reassembly(), 0u);
}

}  // namespace
}  // namespace pf
