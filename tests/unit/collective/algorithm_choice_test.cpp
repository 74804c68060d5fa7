// The automatic choice of the links-only model (simulation.collective_model:
// links; fastest predicted idle time wins) against the simulated algorithms,
// and the rules around it. NCCL's own choice: nccl_model_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.h"
#include "models/collective/algorithm_choice.h"
#include "tests/unit/collective/bench_fixture.h"

namespace pf {
namespace {

using namespace models::collective;

// 16 rail-optimised 8-GPU servers, two leaf groups.
config::ClusterSpec sixteen_servers() {
  return test::preset("a100-sxm-80gb", "rail-optimized",
                      {"topology.nodes=16", "topology.nodes_per_leaf=8"});
}

CollectiveConfig links_only(int channels = 0) {
  CollectiveConfig c;
  c.channels = channels;
  c.nccl_costs = false;
  return c;
}

std::vector<int> first(int n) {
  std::vector<int> m(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) m[static_cast<std::size_t>(i)] = i;
  return m;
}

Algo automatic(const GroupTable& t, Op op, std::uint64_t bytes) {
  Request r;
  r.op = op;
  r.bytes = bytes;
  return choose_algo(r, t.group(0), t.links(0), links_only());
}

TEST(AutomaticChoice, PicksTheFastestSimulatedAlgorithm) {
  const auto b = test::bench(sixteen_servers());
  GroupTable table(b.graph());
  table.add(first(128));
  for (std::uint64_t s : {64ull << 10, 4ull << 20, 256ull << 20}) {
    double best = 1e300;
    for (Algo a : {Algo::ring, Algo::tree, Algo::hierarchical}) {
      const double t = test::run_us(b, Op::all_reduce, a, 128, s);
      best = std::min(best, t);
      // The predictions the choice rests on track the simulation.
      const double predicted = all_reduce_estimate(a, table.group(0), table.links(0), s, 8, 1 << 20) * 1e6;
      EXPECT_NEAR(predicted / t, 1.0, 0.15) << to_string(a) << " " << s;
    }
    const double chosen = test::run_us(b, Op::all_reduce, Algo::automatic, 128, s);
    EXPECT_LE(chosen, best * 1.05) << s << " bytes: auto chose " << to_string(automatic(table, Op::all_reduce, s));
  }
}

TEST(AutomaticChoice, TreesForSmallMessagesAcrossServersRingsForLarge) {
  const auto spec = sixteen_servers();
  const models::network::ClusterGraph g = models::network::build_cluster(spec.hardware.node, spec.topology);
  GroupTable table(g);
  table.add(first(128));
  EXPECT_EQ(automatic(table, Op::all_reduce, 64 << 10), Algo::tree);
  EXPECT_EQ(automatic(table, Op::all_reduce, 1ull << 30), Algo::ring);
}

TEST(AutomaticChoice, RingsInsideOneServer) {
  const auto spec = sixteen_servers();
  const models::network::ClusterGraph g = models::network::build_cluster(spec.hardware.node, spec.topology);
  GroupTable table(g);
  table.add(first(8));
  for (std::uint64_t s = 1024; s <= (1ull << 32); s *= 16) EXPECT_EQ(automatic(table, Op::all_reduce, s), Algo::ring);
}

TEST(AutomaticChoice, OtherOperationsHaveOneAlgorithm) {
  const auto spec = sixteen_servers();
  const models::network::ClusterGraph g = models::network::build_cluster(spec.hardware.node, spec.topology);
  GroupTable table(g);
  table.add(first(32));
  table.add({0, 1, 8});  // irregular: two GPUs on one server, one on another
  EXPECT_EQ(automatic(table, Op::all_gather, 1 << 20), Algo::ring);
  EXPECT_EQ(automatic(table, Op::reduce_scatter, 1 << 20), Algo::ring);
  EXPECT_EQ(automatic(table, Op::broadcast, 1 << 20), Algo::ring);
  EXPECT_EQ(automatic(table, Op::all_to_all, 1 << 20), Algo::direct);
  EXPECT_EQ(automatic(table, Op::send_recv, 1 << 20), Algo::direct);
  Request r;
  r.op = Op::all_gather;
  r.algo = Algo::tree;
  EXPECT_THROW(choose_algo(r, table.group(0), table.links(0), links_only()), ConfigError);
  r.op = Op::all_reduce;
  r.algo = Algo::hierarchical;
  EXPECT_NO_THROW(choose_algo(r, table.group(0), table.links(0), links_only()));
  EXPECT_THROW(choose_algo(r, table.group(1), table.links(1), links_only()), ConfigError);
}

TEST(Channels, OnePerRailAcrossServersOneInside) {
  const auto spec = sixteen_servers();
  const models::network::ClusterGraph g = models::network::build_cluster(spec.hardware.node, spec.topology);
  GroupTable table(g);
  table.add(first(32));
  table.add(first(8));
  table.add({0, 8, 16, 24});
  EXPECT_EQ(channel_count(links_only(), table.group(0), table.links(0)), 8);
  EXPECT_EQ(channel_count(links_only(), table.group(1), table.links(1)), 1);
  EXPECT_EQ(channel_count(links_only(), table.group(2), table.links(2)), 1);
  EXPECT_EQ(channel_count(links_only(4), table.group(0), table.links(0)), 4);
  EXPECT_EQ(channel_count(links_only(1000), table.group(0), table.links(0)), kMaxChannels);
  EXPECT_DOUBLE_EQ(table.links(0).inter_Bps, 25e9);
  EXPECT_DOUBLE_EQ(table.links(0).intra_Bps, 300e9);
}

TEST(PipelinePiece, HalvesUntilThePipelineIsFullButNotBelow64KiB) {
  EXPECT_EQ(pipeline_piece(1ull << 30, 10, 1 << 20), 1u << 20);           // plenty of pieces
  EXPECT_EQ(pipeline_piece(8ull << 20, 4, 1 << 20), 512u << 10);          // 16 pieces for 4 hops
  EXPECT_EQ(pipeline_piece(1 << 20, 100, 1 << 20), 64u << 10);            // floor
  EXPECT_EQ(pipeline_piece(1ull << 30, 10, 32 << 10), 32u << 10);         // never above the chunk size
}

}  // namespace
}  // namespace pf
