// The engine settings derived from a rank mapping.
#include <gtest/gtest.h>

#include "core/error.h"
#include "tests/unit/network/test_cluster.h"

namespace pf {
namespace {

using models::NetworkMode;
using models::SyncMode;

partition::ClusterGraph two_leaves(double latency_us) {
  models::NodeSpec node = test::server(8, 8);
  models::TopologySpec topo = test::fabric(models::TopologyKind::fat_tree, 4, 2);
  topo.link_latency_us = latency_us;
  topo.switch_latency_us = latency_us;
  node.nic_latency_us = latency_us;
  return partition::build_cluster(node, topo);
}

TEST(NetworkLookahead, OneRankUsesTheSmallestPositiveLatency) {
  const partition::ClusterGraph g = two_leaves(0.5);
  const partition::RankMapping m = partition::partition(g, 1, partition::Strategy::block);
  const core::EngineConfig c = models::network::engine_config(g, m, NetworkMode::packet, SyncMode::window);
  core::SimTime smallest = core::SimTime::infinity();
  for (const partition::Link& l : g.links())
    if (l.latency > core::SimTime::zero()) smallest = std::min(smallest, l.latency);
  EXPECT_EQ(c.lookahead, smallest);
  EXPECT_TRUE(c.channel_lookahead.empty());
}

TEST(NetworkLookahead, PacketModeUsesTheChannelMatrix) {
  const partition::ClusterGraph g = two_leaves(0.5);
  const partition::RankMapping m = partition::partition(g, 2, partition::Strategy::block);
  const core::EngineConfig c = models::network::engine_config(g, m, NetworkMode::packet, SyncMode::null_message);
  EXPECT_EQ(c.lookahead, m.report.lookahead);
  EXPECT_EQ(c.channel_lookahead, m.report.channel_matrix());
  EXPECT_EQ(c.sync, core::Sync::null_message);
}

TEST(NetworkLookahead, AnalyticalModeUsesOneLookaheadForEveryPair) {
  // Deliveries go GPU to GPU, possibly between ranks with no direct link.
  const partition::ClusterGraph g = two_leaves(0.5);
  const partition::RankMapping m = partition::partition(g, 3, partition::Strategy::round_robin);
  const core::EngineConfig c = models::network::engine_config(g, m, NetworkMode::analytical, SyncMode::window);
  EXPECT_EQ(c.lookahead, m.report.lookahead);
  EXPECT_TRUE(c.channel_lookahead.empty());
}

TEST(NetworkLookahead, ZeroLatencyCutIsAConfigError) {
  const partition::ClusterGraph g = two_leaves(0.0);
  const partition::RankMapping m = partition::partition(g, 2, partition::Strategy::block);
  EXPECT_THROW(models::network::engine_config(g, m, NetworkMode::packet, SyncMode::window), ConfigError);
}

}  // namespace
}  // namespace pf
