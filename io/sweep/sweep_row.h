// One row of a sweep's table: a variant and the figures of its simulated
// iteration, taken from the run report (io/report/report_json.h) so that they
// are exactly what `preflight run` reports for the same overrides. A variant
// whose configuration does not hold together (tp not dividing the heads) is a
// row too, marked invalid with the one-line reason.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "io/sweep/vary_axis.h"

namespace pf::sweep {

struct SweepRow {
  std::size_t grid_index = 0;
  std::vector<Assignment> variant;
  bool valid = false;
  std::string error;  // why the variant could not run (valid == false)
  double step_time_ms = 0;
  double tokens_per_s = 0;
  double mfu = 0;
  double hfu = 0;
  double peak_memory_gb = 0;
  bool oom = false;   // the plan does not fit in GPU memory (a column, not a failure)
  double wall_s = 0;  // this process's time to simulate the variant (slowest rank of its group)
  std::optional<double> change_pct;  // step time vs the baseline, % (set by apply_change)
};

// The row of a variant that ran, from its report_json().
SweepRow row_from_report(const Variant& variant, const nlohmann::ordered_json& report, double wall_s);

// The row of a variant that cannot run.
SweepRow invalid_row(const Variant& variant, std::string reason);

// Lossless JSON for moving rows between MPI ranks (doubles round-trip exactly).
std::string encode_rows(const std::vector<SweepRow>& rows);
std::vector<SweepRow> decode_rows(const std::string& text);

}  // namespace pf::sweep
