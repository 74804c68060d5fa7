// The report (io/report/README.md) as `/summary` attributes: nested objects are
// flattened into dotted names ("memory.parameters_gb"), numbers stay numbers,
// lists of numbers become 1-D arrays, null becomes the string "null", and
// anything else (lists of objects) is kept as its JSON text. The whole report
// is also stored verbatim as the string attribute `report_json`.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "io/timeline/timeline_content.h"

namespace pf::timeline {

std::vector<SummaryAttribute> summary_attributes(const nlohmann::json& report);

}  // namespace pf::timeline
