#include "io/sweep/ranking.h"

#include <gtest/gtest.h>

namespace pf::sweep {
namespace {

SweepRow valid(std::size_t index, double step_ms, bool oom = false) {
  SweepRow r;
  r.grid_index = index;
  r.variant = {{"k", std::to_string(index)}};
  r.valid = true;
  r.step_time_ms = step_ms;
  r.oom = oom;
  return r;
}

SweepRow invalid(std::size_t index) {
  SweepRow r;
  r.grid_index = index;
  r.variant = {{"k", std::to_string(index)}};
  r.error = "bad";
  return r;
}

std::vector<std::size_t> order(const std::vector<SweepRow>& rows) {
  std::vector<std::size_t> out;
  for (const SweepRow& r : rows) out.push_back(r.grid_index);
  return out;
}

TEST(Ranking, ByStepTimeTiesByGridIndexInvalidLast) {
  // Given in a scrambled order, as rows arrive from MPI groups.
  const std::vector<SweepRow> rows = {invalid(5), valid(3, 10.0), valid(0, 20.0), invalid(2), valid(1, 10.0),
                                      valid(4, 5.0, /*oom=*/true)};
  EXPECT_EQ(order(rank_rows(rows)), (std::vector<std::size_t>{4, 1, 3, 0, 2, 5}));
}

TEST(Ranking, OrderDoesNotDependOnInputOrder) {
  std::vector<SweepRow> rows = {valid(0, 7.0), valid(1, 7.0), valid(2, 7.0), invalid(3), valid(4, 1.0)};
  const auto expected = order(rank_rows(rows));
  std::reverse(rows.begin(), rows.end());
  EXPECT_EQ(order(rank_rows(rows)), expected);
  std::rotate(rows.begin(), rows.begin() + 2, rows.end());
  EXPECT_EQ(order(rank_rows(rows)), expected);
  EXPECT_EQ(expected, (std::vector<std::size_t>{4, 0, 1, 2, 3}));
}

TEST(Change, RelativeToTheFirstVariantInGridOrder) {
  std::vector<SweepRow> rows = {valid(2, 30.0), valid(0, 20.0), valid(1, 10.0), invalid(3)};
  ASSERT_EQ(baseline_index(rows), std::optional<std::size_t>(0));
  apply_change(rows);
  EXPECT_DOUBLE_EQ(*rows[0].change_pct, 50.0);   // 30 vs 20
  EXPECT_DOUBLE_EQ(*rows[1].change_pct, 0.0);    // the baseline itself
  EXPECT_DOUBLE_EQ(*rows[2].change_pct, -50.0);  // 10 vs 20
  EXPECT_FALSE(rows[3].change_pct.has_value());
}

TEST(Change, AnInvalidFirstVariantHandsTheBaselineToTheNextValidOne) {
  std::vector<SweepRow> rows = {invalid(0), valid(2, 12.0), valid(1, 8.0)};
  EXPECT_EQ(baseline_index(rows), std::optional<std::size_t>(1));
  apply_change(rows);
  EXPECT_DOUBLE_EQ(*rows[1].change_pct, 50.0);
  EXPECT_DOUBLE_EQ(*rows[2].change_pct, 0.0);
}

TEST(Change, NoValidRowNoBaseline) {
  std::vector<SweepRow> rows = {invalid(0), invalid(1)};
  EXPECT_FALSE(baseline_index(rows).has_value());
  apply_change(rows);
  EXPECT_FALSE(rows[0].change_pct.has_value());
}

TEST(Change, AZeroBaselineGivesNoPercentages) {
  std::vector<SweepRow> rows = {valid(0, 0.0), valid(1, 3.0)};
  apply_change(rows);
  EXPECT_FALSE(rows[1].change_pct.has_value());
}

}  // namespace
}  // namespace pf::sweep
