// partition/ on a plain LP graph, with no network in sight: groups stay
// whole, free LPs follow the groups their toward_groups edges reach, the
// report's cut, balance and lookahead are those of the edges, and a malformed
// graph is refused.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.h"
#include "partition/partition.h"

namespace pf::partition {
namespace {

// `groups` groups of `per_group` LPs each (a chain inside, 1 ns apart), then
// one free "hub" per pair of groups with edges both ways (10 ns) to the
// pair's first LPs; the hub -> group edges point toward the groups.
LpGraph hubs_and_groups(int groups, int per_group) {
  LpGraph g;
  g.groups = groups;
  const int hubs = groups / 2;
  const int n = groups * per_group + hubs;
  g.group.assign(static_cast<std::size_t>(n), -1);
  g.placement_index.assign(static_cast<std::size_t>(n), 0);
  g.events.assign(static_cast<std::size_t>(n), 1.0);
  std::vector<std::vector<std::int32_t>> out(static_cast<std::size_t>(n));
  const auto add = [&](int a, int b, double ns, bool toward) {
    out[static_cast<std::size_t>(a)].push_back(g.edge_count());
    g.edges.push_back({a, b, core::SimTime::from_ns(ns), 1.0, toward});
  };
  for (int k = 0; k < groups; ++k) {
    for (int i = 0; i < per_group; ++i) {
      const int v = k * per_group + i;
      g.group[static_cast<std::size_t>(v)] = k;
      if (i + 1 < per_group) {
        add(v, v + 1, 1, false);
        add(v + 1, v, 1, false);
      }
    }
  }
  for (int h = 0; h < hubs; ++h) {
    const int hub = groups * per_group + h;
    g.placement_index[static_cast<std::size_t>(hub)] = h;
    for (const int k : {2 * h, 2 * h + 1}) {
      add(hub, k * per_group, 10, true);
      add(k * per_group, hub, 10, false);
    }
  }
  g.out_offset.push_back(0);
  for (const auto& list : out) {
    g.out_edges.insert(g.out_edges.end(), list.begin(), list.end());
    g.out_offset.push_back(static_cast<std::int32_t>(g.out_edges.size()));
  }
  return g;
}

TEST(LpGraphPartition, GroupsStayWholeAndOnlyLongEdgesAreCut) {
  const LpGraph g = hubs_and_groups(8, 5);
  for (const Strategy s : {Strategy::block, Strategy::round_robin, Strategy::metis, Strategy::replicas}) {
    for (const int ranks : {1, 2, 3, 4}) {
      const RankMapping m = partition(g, ranks, s);
      for (std::size_t v = 0; v < g.group.size(); ++v) {
        if (g.group[v] < 0) continue;
        EXPECT_EQ(m.vertex_rank[v], m.vertex_rank[static_cast<std::size_t>(g.group[v] * 5)]) << to_string(s);
      }
      if (m.report.cut_links > 0) {
        EXPECT_EQ(m.report.lookahead, core::SimTime::from_ns(10)) << to_string(s);
      }
      double load = 0;
      for (const double l : m.report.rank_load) load += l;
      EXPECT_DOUBLE_EQ(load, static_cast<double>(g.lp_count()));
    }
  }
}

TEST(LpGraphPartition, BlockPlacesAFreeLpWithTheGroupsItServes) {
  const LpGraph g = hubs_and_groups(8, 5);
  const RankMapping m = partition(g, 4, Strategy::block);  // groups 0,1 on rank 0; 2,3 on rank 1; ...
  for (int h = 0; h < 4; ++h) {
    EXPECT_EQ(m.vertex_rank[static_cast<std::size_t>(40 + h)], h) << "hub " << h;
    EXPECT_EQ(m.vertex_rank[static_cast<std::size_t>(2 * h * 5)], h);
  }
  // Every hub is with both its groups: nothing is cut.
  EXPECT_EQ(m.report.cut_links, 0);
  const RankMapping rr = partition(g, 2, Strategy::round_robin);  // groups alternate: a hub's two groups differ
  EXPECT_EQ(rr.report.cut_links, 4 * 2);  // one of each hub's two edge pairs crosses
}

TEST(LpGraphPartition, ReplicasBlocksGroupsAlongTheCallersOrder) {
  LpGraph g = hubs_and_groups(8, 5);
  // Without an order: block.
  EXPECT_EQ(partition(g, 4, Strategy::replicas).vertex_rank, partition(g, 4, Strategy::block).vertex_rank);
  // Evens first, then odds: two contiguous runs of four along that order.
  g.group_order = {0, 2, 4, 6, 1, 3, 5, 7};
  const RankMapping m = partition(g, 2, Strategy::replicas);
  for (int k = 0; k < 8; ++k) EXPECT_EQ(m.vertex_rank[static_cast<std::size_t>(k * 5)], k % 2) << "group " << k;
  // Each hub serves an even and an odd group: tied, the hubs alternate.
  for (int h = 0; h < 4; ++h) EXPECT_EQ(m.vertex_rank[static_cast<std::size_t>(40 + h)], h % 2) << "hub " << h;
  // Three ranks: runs of 3, 3 and 2 groups along the order.
  const RankMapping three = partition(g, 3, Strategy::replicas);
  const int expected[] = {0, 1, 0, 1, 0, 2, 1, 2};  // group k at position 0,4,1,5,2,6,3,7: position x 3 / 8
  for (int k = 0; k < 8; ++k) EXPECT_EQ(three.vertex_rank[static_cast<std::size_t>(k * 5)], expected[k]) << k;
}

TEST(LpGraphPartition, MalformedGraphsAreRefused) {
  LpGraph g = hubs_and_groups(4, 2);
  g.group[0] = 7;
  EXPECT_THROW(partition(g, 2, Strategy::block), SimulationError);
  g = hubs_and_groups(4, 2);
  g.edges[0].dst = 999;
  EXPECT_THROW(partition(g, 2, Strategy::metis), SimulationError);
  g = hubs_and_groups(4, 2);
  g.events.pop_back();
  EXPECT_THROW(partition(g, 2, Strategy::block), SimulationError);
  EXPECT_THROW(partition(hubs_and_groups(4, 2), 0, Strategy::block), SimulationError);
  g = hubs_and_groups(4, 2);
  g.group_order = {0, 1, 1, 3};  // group 1 twice, 2 missing
  EXPECT_THROW(partition(g, 2, Strategy::replicas), SimulationError);
  g.group_order = {0, 1, 2};  // one short
  EXPECT_THROW(partition(g, 2, Strategy::replicas), SimulationError);
}

}  // namespace
}  // namespace pf::partition
