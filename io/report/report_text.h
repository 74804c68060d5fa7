// The human-readable report that rank 0 prints after `preflight run`: a
// compact aligned block with the headline figures, the phase breakdown as a
// share of the step, communication, bubble, memory and OOM verdict,
// bottlenecks, the uncertainty band and the simulation's own figures.
//
// It is rendered from report_json()'s output, never from the RunResult, so the
// printed numbers and the JSON file cannot disagree; the registry's figures
// (core/statistics.h) close it as a "figures" block, each labelled figure's
// value read from the JSON at its key, its label and unit from the registry. Formats: times "%.3f ms",
// memory "%.2f" GiB, MFU/HFU and shares "%.1f %%", TFLOP/s "%.1f", tokens/s
// "%.0f".
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/statistics.h"

namespace pf::report {

// Throws nlohmann::json::exception when a report field (io/report/README.md) is missing.
std::string report_text(const nlohmann::ordered_json& report, const core::Statistics& figures = {});

}  // namespace pf::report
