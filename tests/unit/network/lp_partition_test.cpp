// Rank mapping: servers never split, lookahead from cut links, every vertex
// assigned, determinism, strategy-specific layouts, METIS beats round-robin on
// clustered traffic, and the report's figures recomputed independently.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "models/network/lp_partition.h"
#include "tests/unit/network/shapes.h"

namespace pf::models::network {
namespace {

using partition::RankMapping;
using partition::Strategy;
using partition::ChannelLookahead;
using partition::summarize;

using models::TopologyKind;
using test::node;
using test::topo;

const Strategy kStrategies[] = {Strategy::block, Strategy::round_robin, Strategy::metis};

core::SimTime min_inter_node_latency(const ClusterGraph& g) {
  core::SimTime m = core::SimTime::infinity();
  for (const Link& l : g.links()) {
    if (!is_intra_node(l.cls)) m = std::min(m, l.latency);
  }
  return m;
}

// Rail-optimized, 24 servers x 8 GPUs, 4 per leaf, 8 per pod: 3 pods with cores.
ClusterGraph test_cluster() { return build_cluster(node(8, 8), topo(TopologyKind::rail_optimized, 24, 4, 8)); }

TEST(PartitionStrategy, NeverCutsInsideAServer) {
  const ClusterGraph g = test_cluster();
  for (Strategy s : kStrategies) {
    for (int ranks : {1, 2, 3, 4, 7, 16}) {
      const RankMapping m = partition_cluster(g, ranks, s);
      for (const Link& l : g.links()) {
        if (is_intra_node(l.cls)) {
          ASSERT_EQ(m.rank_of(l.src), m.rank_of(l.dst)) << to_string(s) << " " << ranks;
        }
      }
      for (VertexId v = 0; v < g.vertex_count(); ++v) {
        const Vertex& vx = g.vertex(v);
        if (vx.node >= 0) {
          ASSERT_EQ(m.rank_of(v), m.rank_of(static_cast<VertexId>(vx.node * 8)));  // its first GPU
        }
      }
    }
  }
}

TEST(PartitionStrategy, LookaheadIsTheShortestCutLink) {
  const ClusterGraph g = test_cluster();
  const core::SimTime floor = min_inter_node_latency(g);
  EXPECT_EQ(floor, core::SimTime::from_us(0.5 + 0.6));  // leaf->NIC: cable + switch
  for (Strategy s : kStrategies) {
    for (int ranks : {2, 4, 5}) {
      const RankMapping m = partition_cluster(g, ranks, s);
      core::SimTime expect = core::SimTime::infinity();
      for (const Link& l : g.links()) {
        if (m.rank_of(l.src) != m.rank_of(l.dst)) expect = std::min(expect, l.latency);
      }
      EXPECT_EQ(m.report.lookahead, expect);
      EXPECT_GE(m.report.lookahead, floor);
      EXPECT_FALSE(m.report.lookahead.is_infinite());
    }
    const RankMapping one = partition_cluster(g, 1, s);
    EXPECT_TRUE(one.report.lookahead.is_infinite());
    EXPECT_EQ(one.report.cut_links, 0);
    EXPECT_TRUE(one.report.channels.empty());
  }
}

TEST(PartitionStrategy, AssignsEveryVertexDeterministically) {
  const ClusterGraph g = test_cluster();
  for (Strategy s : kStrategies) {
    for (int ranks : {1, 2, 4, 6, 64, 1000}) {  // 1000 > the 24 + 124 super-vertices
      const RankMapping a = partition_cluster(g, ranks, s);
      const RankMapping b = partition_cluster(g, ranks, s);
      ASSERT_EQ(a.vertex_rank.size(), static_cast<std::size_t>(g.vertex_count()));
      for (int r : a.vertex_rank) {
        ASSERT_GE(r, 0);
        ASSERT_LT(r, ranks);
      }
      EXPECT_EQ(a.vertex_rank, b.vertex_rank) << to_string(s) << " on " << ranks;
    }
  }
}

TEST(PartitionStrategy, BlockIsContiguousAndRoundRobinCycles) {
  const ClusterGraph g = test_cluster();
  const RankMapping block = partition_cluster(g, 5, Strategy::block);
  const RankMapping rr = partition_cluster(g, 5, Strategy::round_robin);
  std::vector<int> per_rank(5, 0);
  for (int n = 0; n < 24; ++n) {
    const VertexId first_gpu = n * 8;
    if (n > 0) {
      EXPECT_GE(block.rank_of(first_gpu), block.rank_of(first_gpu - 8));
    }
    ++per_rank[static_cast<std::size_t>(block.rank_of(first_gpu))];
    EXPECT_EQ(rr.rank_of(first_gpu), n % 5);
  }
  EXPECT_LE(*std::max_element(per_rank.begin(), per_rank.end()) - *std::min_element(per_rank.begin(), per_rank.end()),
            1);
}

TEST(PartitionStrategy, BlockKeepsLeavesWithTheirServers) {
  // Fat tree, 4 servers per leaf, 16 servers on 4 ranks: each block is one leaf group.
  const ClusterGraph g = build_cluster(node(8, 8), topo(TopologyKind::fat_tree, 16, 4));
  const RankMapping m = partition_cluster(g, 4, Strategy::block);
  for (int leaf = 0; leaf < 4; ++leaf) EXPECT_EQ(m.rank_of(g.vertex_of(VertexKind::leaf, leaf)), leaf);
  // Spines are all tied (one leaf per rank): they rotate over the ranks.
  std::vector<int> spines_per_rank(4, 0);
  for (int s = 0; s < g.count(VertexKind::spine); ++s) {
    ++spines_per_rank[static_cast<std::size_t>(m.rank_of(g.vertex_of(VertexKind::spine, s)))];
  }
  EXPECT_EQ(spines_per_rank, std::vector<int>(4, g.count(VertexKind::spine) / 4));
  // Only leaf <-> spine links cross ranks.
  for (const Link& l : g.links()) {
    if (m.rank_of(l.src) != m.rank_of(l.dst)) {
      EXPECT_TRUE(l.cls == LinkClass::leaf_to_spine || l.cls == LinkClass::spine_to_leaf);
    }
  }
}

TEST(PartitionStrategy, MetisBeatsRoundRobinOnClusteredTraffic) {
  // Fat tree of 32 servers, 4 per leaf; traffic all-to-all inside each leaf group.
  const ClusterGraph g = build_cluster(node(8, 8), topo(TopologyKind::fat_tree, 32, 4));
  std::vector<GpuTraffic> traffic;
  for (int src = 0; src < g.gpu_count(); ++src) {
    for (int dst = 0; dst < g.gpu_count(); ++dst) {
      if (src != dst && src / 32 == dst / 32) traffic.push_back({src, dst, 1e6});
    }
  }
  for (int ranks : {2, 4, 8}) {
    const RankMapping metis = partition_cluster(g, ranks, Strategy::metis, traffic);
    const RankMapping rr = partition_cluster(g, ranks, Strategy::round_robin, traffic);
    EXPECT_LE(metis.report.cut_links, rr.report.cut_links) << ranks << " ranks";
    EXPECT_LT(metis.report.cut_weight, rr.report.cut_weight) << ranks << " ranks";
    EXPECT_LT(metis.report.imbalance, 1.3);
  }
}

TEST(PartitionStrategy, ReportFiguresRecomputed) {
  const ClusterGraph g = test_cluster();
  for (Strategy s : kStrategies) {
    const RankMapping m = partition_cluster(g, 4, s);
    const std::vector<double> events = default_vertex_events(g);
    std::vector<double> load(4, 0.0);
    for (VertexId v = 0; v < g.vertex_count(); ++v) {
      load[static_cast<std::size_t>(m.rank_of(v))] += events[static_cast<std::size_t>(v)];
    }
    const double total = load[0] + load[1] + load[2] + load[3];
    EXPECT_EQ(m.report.rank_load, load);
    EXPECT_DOUBLE_EQ(m.report.imbalance, *std::max_element(load.begin(), load.end()) / (total / 4));

    std::int64_t cut = 0;
    std::vector<core::SimTime> pair(16, core::SimTime::infinity());
    for (const Link& l : g.links()) {
      const int a = m.rank_of(l.src), b = m.rank_of(l.dst);
      if (a == b) continue;
      ++cut;
      auto& p = pair[static_cast<std::size_t>(a * 4 + b)];
      p = std::min(p, l.latency);
    }
    EXPECT_EQ(m.report.cut_links, cut);
    EXPECT_DOUBLE_EQ(m.report.cut_weight, static_cast<double>(cut));  // no traffic: one per link
    EXPECT_EQ(m.report.channel_matrix(), pair);
    std::int64_t channel_links = 0;
    for (const ChannelLookahead& c : m.report.channels) channel_links += c.links;
    EXPECT_EQ(channel_links, cut);
  }
}

TEST(PartitionStrategy, CallerEventWeightsDriveBalance) {
  // All the weight on GPUs: METIS must balance GPUs, not ports.
  const ClusterGraph g = test_cluster();
  std::vector<double> events(static_cast<std::size_t>(g.vertex_count()), 0.0);
  for (int gpu = 0; gpu < g.gpu_count(); ++gpu) events[static_cast<std::size_t>(gpu)] = 1.0;
  const RankMapping m = partition_cluster(g, 4, Strategy::metis, {}, events);
  double total = 0;
  for (double x : m.report.rank_load) total += x;
  EXPECT_DOUBLE_EQ(total, g.gpu_count());
  EXPECT_LE(m.report.imbalance, 1.34);  // 24 servers on 4 ranks: within 2 servers of 6
  EXPECT_THROW(partition_cluster(g, 4, Strategy::metis, {}, std::vector<double>(3, 1.0)), SimulationError);
  EXPECT_THROW(partition_cluster(g, 0, Strategy::block), SimulationError);
}

}  // namespace
}  // namespace pf::models::network
