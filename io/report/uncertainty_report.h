// The report's sampled band (io/report/README.md, `uncertainty`): what
// `preflight run --uncertainty N` adds to the `uncertainty` block — P10/P50/P90
// of step time (ms), MFU and tokens/s over the sampled runs, and the
// parameters ranked by how far their prior's range moves the step time.
#pragma once

#include <nlohmann/json.hpp>

#include "models/uncertainty/band.h"

namespace pf::report {

// Adds p10, p50, p90 (step time, ms), method, samples, seed, mfu, tokens_per_s,
// sensitivity and narrow_first to report["uncertainty"]; the existing keys
// (step_time_ms_low/high, basis, calibrated_fraction) stay as they are.
void add_uncertainty_band(nlohmann::ordered_json& report, const models::uncertainty::Band& band);

// {stratum, rows, p10, p50, p90, source}: the model-error prior a band
// includes (models/uncertainty/model_error.h).
nlohmann::ordered_json model_error_json(const models::uncertainty::ModelError& e);

}  // namespace pf::report
