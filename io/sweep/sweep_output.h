// A finished sweep as a ranked text table (stdout), CSV and JSON. All three
// hold the same rows in the same order (ranking.h); the JSON is what
// scripts/plot_sweep.py draws.
//
// JSON: {"experiment", "name", "vary": [{"key", "values": [...]}],
//        "baseline_grid_index", "ranks", "jobs_per_run",
//        "rows": [{"rank", "variant": {key: value}, "grid_index", "step_time_ms",
//                  "tokens_per_s", "mfu", "hfu", "peak_memory_gb", "oom",
//                  "change_pct", "wall_s", "valid", "error"}]}
// With --uncertainty N, also "uncertainty_samples" and, per valid row,
// "uncertainty": robust_ranking.h's band_json (null for invalid rows).
// Values are typed as YAML reads them (variant_value.h). An invalid row has
// rank and figures null and `error` set; a valid row has error null.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "io/sweep/robust_ranking.h"
#include "io/sweep/sweep_row.h"
#include "io/sweep/vary_axis.h"

namespace pf::sweep {

struct SweepTable {
  std::string experiment;            // the experiment file as given
  std::string name;                  // its `name`
  std::vector<VaryAxis> axes;
  std::vector<SweepRow> rows;        // in table order (rank_rows)
  std::optional<std::size_t> baseline;  // grid index of the baseline row
  int ranks = 1;                     // MPI ranks of the whole job
  int jobs_per_run = 1;              // MPI ranks per variant
  std::optional<SweepBands> bands;   // with --uncertainty N (robust_ranking.h)
};

std::string format_table(const SweepTable& table);
std::string format_csv(const SweepTable& table);
nlohmann::ordered_json sweep_json(const SweepTable& table);

// One line for stderr when a variant finishes:
// "sweep: [3/9] tp=4: 1234.567 ms, 45.2% MFU, oom (12.3 s)".
std::string progress_line(const SweepRow& row, std::size_t total, const std::vector<std::string>& shortened);

}  // namespace pf::sweep
