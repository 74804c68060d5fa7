// Rank <-> coordinates in Megatron's order, and the communication groups.
#include <gtest/gtest.h>

#include <set>

#include "core/error.h"
#include "models/workload/layer_split.h"
#include "models/workload/rank_layout.h"

namespace pf::models::workload {
namespace {

ParallelismSpec par(int tp, int cp, int dp, int pp, int ep = 1, int expert_tp = 0) {
  ParallelismSpec p;
  p.tp = tp;
  p.cp = cp;
  p.dp = dp;
  p.pp = pp;
  p.ep = ep;
  p.expert_tp = expert_tp;
  return p;
}

TEST(RankLayout, TensorFastestThenContextThenDataThenPipeline) {
  RankLayout l(par(2, 2, 2, 2));
  EXPECT_EQ(l.world_size(), 16);
  EXPECT_EQ(l.coords(5), (Coords{1, 0, 1, 0}));
  EXPECT_EQ(l.coords(10), (Coords{0, 1, 0, 1}));
  for (int r = 0; r < 16; ++r) EXPECT_EQ(l.rank(l.coords(r)), r);
  EXPECT_EQ(l.members(l.group_of(GroupKind::tp, 0)), (std::vector<int>{0, 1}));
  EXPECT_EQ(l.members(l.group_of(GroupKind::cp, 0)), (std::vector<int>{0, 2}));
  EXPECT_EQ(l.members(l.group_of(GroupKind::dp, 0)), (std::vector<int>{0, 4}));
  EXPECT_EQ(l.members(l.group_of(GroupKind::dp_cp, 1)), (std::vector<int>{1, 3, 5, 7}));
  EXPECT_EQ(l.members(l.group_of(GroupKind::pp, 3)), (std::vector<int>{3, 11}));
}

// The example in Megatron-LM's initialize_model_parallel docstring: 16 GPUs,
// tp = 2, pp = 4 give data-parallel groups [g0, g2], [g1, g3], [g4, g6], ...
// and pipeline groups [g0, g4, g8, g12], [g1, g5, g9, g13], ...
TEST(RankLayout, MatchesMegatronDocstringExample) {
  RankLayout l(par(2, 1, 2, 4));
  EXPECT_EQ(l.members(l.group_of(GroupKind::dp, 0)), (std::vector<int>{0, 2}));
  EXPECT_EQ(l.members(l.group_of(GroupKind::dp, 5)), (std::vector<int>{5, 7}));
  EXPECT_EQ(l.members(l.group_of(GroupKind::tp, 2)), (std::vector<int>{2, 3}));
  EXPECT_EQ(l.members(l.group_of(GroupKind::pp, 1)), (std::vector<int>{1, 5, 9, 13}));
  EXPECT_EQ(l.members(l.group_of(GroupKind::embd, 1)), (std::vector<int>{1, 13}));
  EXPECT_TRUE(l.group_of(GroupKind::embd, 5).is_none());
}

TEST(RankLayout, ExpertGroupsAreCarvedOutOfDataParallelism) {
  RankLayout l(par(1, 1, 8, 1, 4));
  EXPECT_EQ(l.members(l.group_of(GroupKind::ep, 6)), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(l.members(l.group_of(GroupKind::edp, 6)), (std::vector<int>{2, 6}));
  RankLayout with_tp(par(2, 1, 4, 2, 2));
  EXPECT_EQ(with_tp.members(with_tp.group_of(GroupKind::ep, 9)), (std::vector<int>{9, 11}));
  EXPECT_EQ(with_tp.members(with_tp.group_of(GroupKind::edp, 9)), (std::vector<int>{9, 13}));
}

// Megatron-Core's MoE parallel folding with expert TP 1: the stage's ranks
// seen as etp x ep x edp, so EP groups are consecutive ranks (inside a server
// when ep fits), across TP and CP ranks alike; expert-DP strides over them.
TEST(RankLayout, ExpertTp1PutsExpertGroupsOnConsecutiveRanks) {
  RankLayout l(par(2, 2, 4, 2, 8, 1));  // 16 ranks per stage: EP 8 x EDP 2
  EXPECT_EQ(l.members(l.group_of(GroupKind::ep, 5)), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(l.members(l.group_of(GroupKind::ep, 25)), (std::vector<int>{24, 25, 26, 27, 28, 29, 30, 31}));
  EXPECT_EQ(l.members(l.group_of(GroupKind::edp, 5)), (std::vector<int>{5, 13}));
  EXPECT_EQ(l.group_size(GroupKind::edp), 2);
  EXPECT_EQ(l.ep_rank(13), 5);
  EXPECT_EQ(l.edp_rank(13), 1);
  // Rejected: etp * ep must divide tp * cp * dp.
  EXPECT_THROW(RankLayout(par(2, 1, 3, 1, 4, 1)), ConfigError);
}

// expert_tp = tp is the layout of "EP carved out of dp": the expert groups of
// an explicit expert_tp = tp equal the default's, rank for rank, and the
// default's follow the closed form x = cp + CP * dp = ep + EP * edp.
TEST(RankLayout, ExpertTpEqualToTpIsTheDataCarvedLayout) {
  for (const ParallelismSpec& p : {par(2, 1, 8, 2, 4), par(4, 2, 4, 1, 8), par(1, 2, 6, 3, 3)}) {
    RankLayout carved(p);
    ParallelismSpec explicit_tp = p;
    explicit_tp.expert_tp = p.tp;
    RankLayout folded(explicit_tp);
    for (int r = 0; r < carved.world_size(); ++r) {
      const Coords c = carved.coords(r);
      const int x = c.cp + p.cp * c.dp;
      EXPECT_EQ(carved.ep_rank(r), x % p.ep);
      EXPECT_EQ(carved.edp_rank(r), x / p.ep);
      for (GroupKind k : {GroupKind::ep, GroupKind::edp}) {
        EXPECT_EQ(carved.group_of(k, r), folded.group_of(k, r));
        EXPECT_EQ(carved.members(carved.group_of(k, r)), folded.members(folded.group_of(k, r)));
        for (int m : carved.members(carved.group_of(k, r))) EXPECT_EQ(carved.coords(m).tp, c.tp);
      }
    }
  }
}

// Every kind of group partitions the ranks, and ids, members and positions agree.
void expect_groups_partition_the_ranks(const RankLayout& l) {
  for (int k = 1; k < kGroupKindCount; ++k) {
    auto kind = static_cast<GroupKind>(k);
    std::set<int> seen;
    std::set<std::uint32_t> ids;
    for (int r = 0; r < l.world_size(); ++r) {
      GroupId g = l.group_of(kind, r);
      if (g.is_none()) continue;
      ids.insert(g.raw());
      std::vector<int> m = l.members(g);
      ASSERT_EQ(static_cast<int>(m.size()), l.group_size(kind));
      EXPECT_EQ(m[static_cast<std::size_t>(l.rank_in_group(kind, r))], r) << RankLayout::group_name(g);
      for (int x : m) EXPECT_EQ(l.group_of(kind, x), g);
      seen.insert(r);
    }
    EXPECT_EQ(static_cast<int>(ids.size()), l.group_count(kind)) << group_kind_name(kind);
    if (kind != GroupKind::embd) {
      EXPECT_EQ(static_cast<int>(seen.size()), l.world_size());
    }
  }
}

TEST(RankLayout, GroupsPartitionTheRanks) {
  expect_groups_partition_the_ranks(RankLayout(par(2, 2, 4, 3, 4)));
  expect_groups_partition_the_ranks(RankLayout(par(2, 2, 4, 3, 8, 1)));  // expert TP 1
  expect_groups_partition_the_ranks(RankLayout(par(4, 1, 4, 2, 16, 1)));
}

TEST(RankLayout, StableNamesAndRawIds) {
  GroupId g{GroupKind::tp, 3};
  EXPECT_EQ(RankLayout::group_name(g), "tp[3]");
  EXPECT_EQ(GroupId::from_raw(g.raw()), g);
  EXPECT_EQ(RankLayout::group_name(GroupId{GroupKind::dp_cp, 0}), "dp_cp[0]");
}

TEST(RankLayout, RejectsExpertSizeThatDoesNotDivideDataParallelism) {
  EXPECT_THROW(RankLayout(par(1, 1, 6, 1, 4)), ConfigError);
}

TEST(LayerSplit, Llama3On16StagesLeavesOneLayerOffTheEnds) {
  LayerSplit s(126, 16, 1, {});
  EXPECT_EQ(s.layer_count(0), 7);
  EXPECT_EQ(s.layer_count(15), 7);
  for (int v = 1; v < 15; ++v) EXPECT_EQ(s.layer_count(v), 8);
  EXPECT_EQ(s.first_layer(1), 7);
  EXPECT_EQ(s.first_layer(15), 119);
}

TEST(LayerSplit, InterleavedStagesHoldEveryPpthChunk) {
  LayerSplit s(8, 2, 2, {});
  EXPECT_EQ(s.vstage(1, 1), 3);
  EXPECT_EQ(s.first_layer(s.vstage(1, 0)), 2);
  EXPECT_EQ(s.first_layer(s.vstage(0, 1)), 4);
  EXPECT_EQ(s.stage_layers(0), 4);
}

TEST(LayerSplit, ExplicitCountsMustCoverTheModel) {
  LayerSplit s(10, 2, 1, {4, 6});
  EXPECT_EQ(s.first_layer(1), 4);
  EXPECT_EQ(s.layer_count(1), 6);
  EXPECT_THROW(LayerSplit(10, 2, 1, {4, 5}), ConfigError);
  EXPECT_THROW(LayerSplit(10, 2, 1, {10}), ConfigError);
}

}  // namespace
}  // namespace pf::models::workload
