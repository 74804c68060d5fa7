// A --vary value as JSON, typed the way a YAML 1.2 core-schema reader types a
// scalar, so the sweep's JSON says {"parallelism.tp": 4} rather than "4":
//
//   "4" -> 4        "2.5" / "1e3" -> 2.5 / 1000.0      "true" -> true
//   "null" / "~" -> null     "'4'" / "\"x\"" -> "4" / "x" (quoted: a string)
//   "[40, 40]" -> [40, 40]   (flow collections whose text is also JSON)
//   anything else (selective, a path) -> the text as a string
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace pf::sweep {

nlohmann::ordered_json value_json(std::string_view yaml_text);

// The shortest text that reads back as the same double (what JSON writes):
// CSV and JSON agree digit for digit, and a sampled --set value is exact.
std::string exact_text(double v);

}  // namespace pf::sweep
