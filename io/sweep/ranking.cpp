#include "io/sweep/ranking.h"

#include <algorithm>

namespace pf::sweep {

std::optional<std::size_t> baseline_index(const std::vector<SweepRow>& rows) {
  std::optional<std::size_t> best;
  for (const SweepRow& r : rows)
    if (r.valid && (!best || r.grid_index < *best)) best = r.grid_index;
  return best;
}

void apply_change(std::vector<SweepRow>& rows) {
  const std::optional<std::size_t> base = baseline_index(rows);
  double base_ms = 0;
  for (const SweepRow& r : rows)
    if (base && r.grid_index == *base) base_ms = r.step_time_ms;
  for (SweepRow& r : rows) {
    r.change_pct.reset();
    if (r.valid && base_ms > 0) r.change_pct = (r.step_time_ms - base_ms) / base_ms * 100.0;
  }
}

std::vector<SweepRow> rank_rows(std::vector<SweepRow> rows) {
  std::sort(rows.begin(), rows.end(), [](const SweepRow& a, const SweepRow& b) {
    if (a.valid != b.valid) return a.valid;
    if (a.valid && a.step_time_ms != b.step_time_ms) return a.step_time_ms < b.step_time_ms;
    return a.grid_index < b.grid_index;
  });
  return rows;
}

}  // namespace pf::sweep
