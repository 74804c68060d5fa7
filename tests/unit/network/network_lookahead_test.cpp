// The engine settings derived from a rank mapping.
#include <gtest/gtest.h>

#include <vector>

#include "core/error.h"
#include "tests/unit/network/test_cluster.h"

namespace pf {
namespace {

using models::NetworkMode;
using models::SyncMode;

models::network::ClusterGraph two_leaves(double latency_us) {
  models::NodeSpec node = test::server(8, 8);
  models::TopologySpec topo = test::fabric(models::TopologyKind::fat_tree, 4, 2);
  topo.link_latency_us = latency_us;
  topo.switch_latency_us = latency_us;
  node.nic_latency_us = latency_us;
  return models::network::build_cluster(node, topo);
}

TEST(NetworkLookahead, OneRankUsesTheSmallestPositiveLatency) {
  const models::network::ClusterGraph g = two_leaves(0.5);
  const partition::RankMapping m = models::network::partition_cluster(g, 1, partition::Strategy::block);
  const core::EngineConfig c = models::network::engine_config(g, m, NetworkMode::packet, SyncMode::window);
  core::SimTime smallest = core::SimTime::infinity();
  for (const models::network::Link& l : g.links())
    if (l.latency > core::SimTime::zero()) smallest = std::min(smallest, l.latency);
  EXPECT_EQ(c.lookahead, smallest);
  EXPECT_TRUE(c.channel_lookahead.empty());
}

TEST(NetworkLookahead, PacketModeUsesTheChannelMatrix) {
  const models::network::ClusterGraph g = two_leaves(0.5);
  const partition::RankMapping m = models::network::partition_cluster(g, 2, partition::Strategy::block);
  const core::EngineConfig c = models::network::engine_config(g, m, NetworkMode::packet, SyncMode::null_message);
  EXPECT_EQ(c.lookahead, m.report.lookahead);
  EXPECT_EQ(c.channel_lookahead, m.report.channel_matrix());
  EXPECT_EQ(c.sync, core::Sync::null_message);
}

TEST(NetworkLookahead, AnalyticalModeUsesOneLookaheadForEveryPair) {
  // Deliveries go GPU to GPU, possibly between ranks with no direct link.
  const models::network::ClusterGraph g = two_leaves(0.5);
  const partition::RankMapping m = models::network::partition_cluster(g, 3, partition::Strategy::round_robin);
  const core::EngineConfig c = models::network::engine_config(g, m, NetworkMode::analytical, SyncMode::window);
  EXPECT_EQ(c.lookahead, m.report.lookahead);
  EXPECT_TRUE(c.channel_lookahead.empty());
}

TEST(NetworkLookahead, ZeroLatencyCutIsAConfigError) {
  const models::network::ClusterGraph g = two_leaves(0.0);
  const partition::RankMapping m = models::network::partition_cluster(g, 2, partition::Strategy::block);
  EXPECT_THROW(models::network::engine_config(g, m, NetworkMode::packet, SyncMode::window), ConfigError);
}

// Per-LP lookahead, recomputed by plain Bellman-Ford relaxation (a different
// algorithm from the code's Dijkstra): d(v) = min over links v->w of latency
// (w on another rank) or latency + d(w) (same rank), and GPUs of one server
// share their best value (closed-form server collectives signal at once).
std::vector<core::SimTime> relaxed_lookahead(const models::network::ClusterGraph& g, const partition::RankMapping& m) {
  std::vector<core::SimTime> d(static_cast<std::size_t>(g.vertex_count()), core::SimTime::infinity());
  for (bool changed = true; changed;) {
    changed = false;
    for (const models::network::Link& l : g.links()) {
      const core::SimTime via = m.rank_of(l.src) != m.rank_of(l.dst) ? l.latency : l.latency + d[l.dst];
      if (via < d[l.src]) d[l.src] = via, changed = true;
    }
    for (int gpu = 0; gpu < g.gpu_count(); ++gpu)
      for (int peer = 0; peer < g.gpu_count(); ++peer)
        if (g.node_of_gpu(gpu) == g.node_of_gpu(peer) && d[peer] < d[gpu]) d[gpu] = d[peer], changed = true;
  }
  return d;
}

TEST(NetworkLookahead, PerLpLookaheadIsTheDistanceToTheNearestCutLink) {
  const models::network::ClusterGraph g = two_leaves(0.5);
  for (int ranks : {2, 3}) {
    const partition::RankMapping m = models::network::partition_cluster(g, ranks, partition::Strategy::block);
    const core::EngineConfig c = models::network::engine_config(g, m, NetworkMode::packet, SyncMode::window);
    ASSERT_EQ(c.lp_lookahead.size(), static_cast<std::size_t>(g.vertex_count()));
    EXPECT_EQ(c.lp_lookahead, relaxed_lookahead(g, m)) << ranks << " ranks";
    for (models::network::VertexId v = 0; v < g.vertex_count(); ++v) {
      EXPECT_GE(c.lp_lookahead[static_cast<std::size_t>(v)], c.lookahead) << "vertex " << v;
      for (models::network::LinkId l : g.out_links(v))
        if (m.rank_of(g.link(l).dst) != m.rank_of(v)) {
          EXPECT_LE(c.lp_lookahead[static_cast<std::size_t>(v)], g.link(l).latency);
        }
    }
  }
}

TEST(NetworkLookahead, OneRankHasNoCutSoNoLpIsNearOne) {
  const models::network::ClusterGraph g = two_leaves(0.5);
  const partition::RankMapping m = models::network::partition_cluster(g, 1, partition::Strategy::block);
  for (core::SimTime d : models::network::lp_lookahead(g, m)) EXPECT_TRUE(d.is_infinite());
}

}  // namespace
}  // namespace pf
