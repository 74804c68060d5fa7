#include "io/timeline/report_attributes.h"

#include <algorithm>
#include <cstdint>
#include <string>

namespace pf::timeline {

namespace {

bool all_numbers(const nlohmann::json& list) {
  return std::all_of(list.begin(), list.end(), [](const nlohmann::json& v) { return v.is_number(); });
}

void flatten(const nlohmann::json& value, const std::string& name, std::vector<SummaryAttribute>& out) {
  if (value.is_object()) {
    for (const auto& [key, child] : value.items()) flatten(child, name.empty() ? key : name + "." + key, out);
  } else if (value.is_number_unsigned() && value.get<std::uint64_t>() > INT64_MAX) {
    out.push_back({name, value.get<double>()});
  } else if (value.is_number_integer() || value.is_boolean()) {
    out.push_back({name, value.is_boolean() ? std::int64_t{value.get<bool>()} : value.get<std::int64_t>()});
  } else if (value.is_number()) {
    out.push_back({name, value.get<double>()});
  } else if (value.is_string()) {
    out.push_back({name, value.get<std::string>()});
  } else if (value.is_null()) {
    out.push_back({name, std::string("null")});
  } else if (value.is_array() && all_numbers(value)) {
    out.push_back({name, value.get<std::vector<double>>()});
  } else {
    out.push_back({name, value.dump()});
  }
}

}  // namespace

std::vector<SummaryAttribute> summary_attributes(const nlohmann::json& report) {
  std::vector<SummaryAttribute> out;
  if (report.is_object()) flatten(report, "", out);
  out.push_back({"report_json", report.dump()});
  return out;
}

}  // namespace pf::timeline
