// The /groups table and the GroupId -> row mapping.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/error.h"
#include "io/report/group_table.h"

namespace pf::report {
namespace {

using models::workload::GroupId;
using models::workload::GroupKind;
using models::workload::kGroupKindCount;
using models::workload::RankLayout;

models::ParallelismSpec par(int tp, int pp, int dp, int cp, int ep) {
  models::ParallelismSpec p;
  p.tp = tp;
  p.pp = pp;
  p.dp = dp;
  p.cp = cp;
  p.ep = ep;
  return p;
}

// Every group any rank belongs to maps to the row carrying its name, rows are
// unique, and the table holds exactly the layout's groups plus "none".
void expect_round_trip(const RankLayout& layout) {
  const auto table = group_table(layout);
  const GroupIndex index(layout);
  ASSERT_EQ(table.size(), index.size());
  EXPECT_EQ(table[0], "none");
  EXPECT_EQ(group_index(GroupId{}, layout), 0u);
  std::size_t expected_rows = 1;
  for (int k = 1; k < kGroupKindCount; ++k) expected_rows += static_cast<std::size_t>(layout.group_count(GroupKind(k)));
  EXPECT_EQ(table.size(), expected_rows);
  EXPECT_EQ(std::set<std::string>(table.begin(), table.end()).size(), table.size());

  std::set<std::uint32_t> seen;
  for (int k = 1; k < kGroupKindCount; ++k) {
    const auto kind = static_cast<GroupKind>(k);
    for (int rank = 0; rank < layout.world_size(); ++rank) {
      const GroupId g = layout.group_of(kind, rank);
      if (g.is_none()) continue;  // embd: middle stages have none
      const std::uint32_t row = group_index(g, layout);
      ASSERT_LT(row, table.size());
      EXPECT_EQ(row, index(g));
      EXPECT_EQ(table[row], RankLayout::group_name(g));
      seen.insert(row);
    }
  }
  // Every row but "none" is some rank's group: the table has no phantom rows.
  EXPECT_EQ(seen.size() + 1, table.size());
}

TEST(GroupTable, Tp2Pp2Dp2RoundTrip) {
  const RankLayout layout(par(2, 2, 2, 1, 1));
  expect_round_trip(layout);
  // 8 GPUs: tp 4 groups, cp 8 (size 1), dp 4, dp_cp 4, ep 8 (size 1), edp 4, pp 4, embd 4.
  const auto table = group_table(layout);
  EXPECT_EQ(table.size(), 1u + 4 + 8 + 4 + 4 + 8 + 4 + 4 + 4);
  // Kind order, then index order.
  EXPECT_EQ(table[1], "tp[0]");
  EXPECT_EQ(table[4], "tp[3]");
  EXPECT_EQ(table[5], "cp[0]");
  EXPECT_EQ(table[13], "dp[0]");
  EXPECT_EQ(table.back(), "embd[3]");
  EXPECT_EQ(group_index(GroupId{GroupKind::dp, 2}, layout), 15u);
  EXPECT_EQ(group_index(GroupId{GroupKind::tp, 0}, layout), 1u);
}

TEST(GroupTable, ExpertParallelRoundTrip) {
  const RankLayout layout(par(2, 2, 4, 1, 2));
  expect_round_trip(layout);
  const GroupIndex index(layout);
  // 16 GPUs, ep = 2 carved out of dp = 4: 8 EP groups and 8 expert-DP groups of 2.
  EXPECT_EQ(layout.group_count(GroupKind::ep), 8);
  EXPECT_EQ(layout.group_count(GroupKind::edp), 8);
  const auto table = group_table(layout);
  EXPECT_EQ(table[index(GroupId{GroupKind::ep, 7})], "ep[7]");
  EXPECT_EQ(table[index(GroupId{GroupKind::edp, 0})], "edp[0]");
}

TEST(GroupTable, ContextParallelRoundTrip) { expect_round_trip(RankLayout(par(2, 3, 2, 2, 2))); }

TEST(GroupTable, UnknownGroupIsAnError) {
  const RankLayout layout(par(2, 1, 2, 1, 1));  // pp = 1: no embedding group
  EXPECT_THROW(group_index(GroupId{GroupKind::tp, 2}, layout), SimulationError);  // only tp[0], tp[1]
  EXPECT_THROW(group_index(GroupId{GroupKind::embd, 0}, layout), SimulationError);
  EXPECT_THROW(group_index(GroupId::from_raw(0xff000000u), layout), SimulationError);  // no such kind
  EXPECT_NO_THROW(group_index(GroupId{GroupKind::tp, 1}, layout));
}

}  // namespace
}  // namespace pf::report
