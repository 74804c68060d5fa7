// Ordering a sweep's rows and comparing them with the baseline.
//
// The baseline is the first variant in grid order (every --vary at its first
// value); if that variant is invalid, the first valid one in grid order.
// change_pct = (step - baseline step) / baseline step x 100, so a faster
// variant has a negative change.
//
// Ranking: valid rows by step time ascending, equal step times by grid index
// (so the order never depends on which MPI group ran what); OOM rows are
// ranked like any other (OOM is a column); invalid rows last, in grid order.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "io/sweep/sweep_row.h"

namespace pf::sweep {

// The grid index of the baseline row, or nullopt when no row is valid.
std::optional<std::size_t> baseline_index(const std::vector<SweepRow>& rows);

// Sets change_pct on every valid row (left empty on invalid rows, and on all
// rows when the baseline's step time is zero).
void apply_change(std::vector<SweepRow>& rows);

// The rows in table order (see above).
std::vector<SweepRow> rank_rows(std::vector<SweepRow> rows);

}  // namespace pf::sweep
