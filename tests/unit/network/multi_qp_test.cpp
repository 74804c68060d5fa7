// topology.routing: ecmp_multi_qp in packet mode: a connection's chunks go
// round-robin over qps_per_connection queue pairs, each hashed onto its own
// equal-cost path. One queue pair is plain ECMP, event for event; an idle
// transfer costs exactly what ECMP's does (equal paths, reassembled at the
// destination); a cross-leaf all-to-all loses less to flow collisions the
// more queue pairs there are, and stays below adaptive routing, which also
// sees queue depths; every message reassembles once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "models/network/routing.h"
#include "tests/unit/network/test_cluster.h"

namespace pf {
namespace {

using models::NetworkMode;
using models::Routing;
using models::TopologyKind;

// 8 servers of 4 GPUs and 4 NICs, one server a leaf, non-blocking: 8 leaves
// of 4 uplinks each, to 4 spines.
models::TopologySpec fabric(Routing routing, int qps) {
  models::TopologySpec t = test::fabric(TopologyKind::fat_tree, 8, 1);
  t.routing = routing;
  t.qps_per_connection = qps;
  return t;
}

// The all-to-all's time as a share of the bound its NICs set (28 messages each).
double all_to_all_efficiency(Routing routing, int qps, std::uint64_t bytes, std::size_t* left_in_reassembly = nullptr) {
  const models::network::ClusterGraph g = models::network::build_cluster(test::server(4, 4), fabric(routing, qps));
  test::TransferRig rig(g, test::net_config(NetworkMode::packet, 256 << 10));
  const std::vector<core::SimTime> done = rig.run(test::cross_leaf_all_to_all(g, bytes));
  if (left_in_reassembly != nullptr) *left_in_reassembly = rig.network().messages_in_reassembly();
  const double time = std::max_element(done.begin(), done.end())->seconds();
  const double nic_Bps = g.link(g.nic_leaf_link(0)).bandwidth_Bps;
  return 28.0 * static_cast<double>(bytes) / nic_Bps / time;
}

TEST(MultiQueuePairRouting, OneQueuePairIsPlainEcmp) {
  const std::uint64_t bytes = 3 << 20;
  const models::network::ClusterGraph one = models::network::build_cluster(test::server(4, 4), fabric(Routing::ecmp_multi_qp, 1));
  const models::network::ClusterGraph ecmp = models::network::build_cluster(test::server(4, 4), fabric(Routing::ecmp, 1));
  test::TransferRig a(one, test::net_config(NetworkMode::packet, 256 << 10));
  test::TransferRig b(ecmp, test::net_config(NetworkMode::packet, 256 << 10));
  const std::vector<core::SimTime> ta = a.run(test::cross_leaf_all_to_all(one, bytes));
  const std::vector<core::SimTime> tb = b.run(test::cross_leaf_all_to_all(ecmp, bytes));
  ASSERT_EQ(ta.size(), tb.size());
  for (std::size_t i = 0; i < ta.size(); ++i) EXPECT_EQ(ta[i].ps, tb[i].ps) << "message " << i;
  EXPECT_EQ(a.events(), b.events());
}

TEST(MultiQueuePairRouting, AnIdleTransferCostsWhatEcmpDoes) {
  const models::network::ClusterGraph g = models::network::build_cluster(test::server(4, 4), fabric(Routing::ecmp_multi_qp, 4));
  const models::network::ClusterGraph ecmp = models::network::build_cluster(test::server(4, 4), fabric(Routing::ecmp, 1));
  for (std::uint64_t bytes : {std::uint64_t{1000}, std::uint64_t{1} << 20, std::uint64_t{37} << 20}) {
    test::TransferRig rig(g, test::net_config(NetworkMode::packet, 256 << 10));
    test::TransferRig reference(ecmp, test::net_config(NetworkMode::packet, 256 << 10));
    EXPECT_EQ(rig.run({{0, 9, bytes}})[0].ps, reference.run({{0, 9, bytes}})[0].ps) << bytes << " bytes";
    EXPECT_EQ(rig.network().messages_in_reassembly(), 0u);
  }
}

TEST(MultiQueuePairRouting, MoreQueuePairsCollideLess) {
  const std::uint64_t bytes = 4 << 20;
  const double ecmp = all_to_all_efficiency(Routing::ecmp, 1, bytes);
  std::size_t left = 1;
  const double qp4 = all_to_all_efficiency(Routing::ecmp_multi_qp, 4, bytes);
  const double qp16 = all_to_all_efficiency(Routing::ecmp_multi_qp, 16, bytes, &left);
  const double adaptive = all_to_all_efficiency(Routing::adaptive, 1, bytes);
  std::printf("cross-leaf all-to-all, 32 GPUs over 4 spines: %% of the NIC bound: ECMP %.1f, 4 QPs %.1f, 16 QPs %.1f, "
              "adaptive %.1f\n", 100 * ecmp, 100 * qp4, 100 * qp16, 100 * adaptive);
  EXPECT_GT(qp4, ecmp + 0.05);
  EXPECT_GT(qp16, qp4);
  EXPECT_LE(qp16, adaptive + 0.01);
  EXPECT_EQ(left, 0u) << "every message reassembled";
}

}  // namespace
}  // namespace pf
