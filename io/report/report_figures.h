// The registry's figures (core/statistics.h) in the report: each written into
// the JSON at its key's path, and read back from there for the text report,
// so the printed and JSON values cannot disagree.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/statistics.h"

namespace pf::report {

// "a.b.c" -> report["a"]["b"]["c"] = value, creating objects on the way.
// Throws pf::SimulationError when a figure would overwrite a key already in
// the report (a contract key or another figure) or descend into a non-object.
void write_figures(nlohmann::ordered_json& report, const core::Statistics& figures);

// The value at `key`'s path, or nullptr.
const nlohmann::ordered_json* figure_value(const nlohmann::ordered_json& report, const std::string& key);

}  // namespace pf::report
