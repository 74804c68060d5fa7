#include "io/sweep/sweep_row.h"

namespace pf::sweep {

namespace {

using nlohmann::ordered_json;

// A figure of the report; null (none exists) reads as 0, as in report_text.
double number(const ordered_json& report, const char* key) {
  const ordered_json& v = report.at(key);
  return v.is_number() ? v.get<double>() : 0.0;
}

ordered_json row_to_json(const SweepRow& r) {
  ordered_json variant = ordered_json::array();
  for (const Assignment& a : r.variant) variant.push_back({a.key, a.value});
  ordered_json j = {{"grid_index", r.grid_index}, {"variant", std::move(variant)}, {"valid", r.valid},
                    {"error", r.error},           {"step_time_ms", r.step_time_ms},
                    {"tokens_per_s", r.tokens_per_s}, {"mfu", r.mfu},
                    {"hfu", r.hfu},               {"peak_memory_gb", r.peak_memory_gb},
                    {"oom", r.oom},               {"wall_s", r.wall_s}};
  j["change_pct"] = r.change_pct ? ordered_json(*r.change_pct) : ordered_json(nullptr);
  return j;
}

SweepRow row_from_json(const ordered_json& j) {
  SweepRow r;
  r.grid_index = j.at("grid_index").get<std::size_t>();
  for (const ordered_json& a : j.at("variant")) r.variant.push_back({a.at(0).get<std::string>(), a.at(1).get<std::string>()});
  r.valid = j.at("valid").get<bool>();
  r.error = j.at("error").get<std::string>();
  r.step_time_ms = j.at("step_time_ms").get<double>();
  r.tokens_per_s = j.at("tokens_per_s").get<double>();
  r.mfu = j.at("mfu").get<double>();
  r.hfu = j.at("hfu").get<double>();
  r.peak_memory_gb = j.at("peak_memory_gb").get<double>();
  r.oom = j.at("oom").get<bool>();
  r.wall_s = j.at("wall_s").get<double>();
  if (!j.at("change_pct").is_null()) r.change_pct = j.at("change_pct").get<double>();
  return r;
}

}  // namespace

SweepRow row_from_report(const Variant& variant, const ordered_json& report, double wall_s) {
  SweepRow r;
  r.grid_index = variant.grid_index;
  r.variant = variant.assignments;
  r.valid = true;
  r.step_time_ms = number(report, "step_time_ms");
  r.tokens_per_s = number(report, "tokens_per_s");
  r.mfu = number(report, "mfu");
  r.hfu = number(report, "hfu");
  r.peak_memory_gb = number(report, "peak_memory_gb");
  r.oom = !report.at("oom").is_null() || (report.contains("host_oom") && !report.at("host_oom").is_null());
  r.wall_s = wall_s;
  return r;
}

SweepRow invalid_row(const Variant& variant, std::string reason) {
  SweepRow r;
  r.grid_index = variant.grid_index;
  r.variant = variant.assignments;
  r.valid = false;
  r.error = std::move(reason);
  return r;
}

std::string encode_rows(const std::vector<SweepRow>& rows) {
  ordered_json j = ordered_json::array();
  for (const SweepRow& r : rows) j.push_back(row_to_json(r));
  return j.dump();
}

std::vector<SweepRow> decode_rows(const std::string& text) {
  std::vector<SweepRow> rows;
  if (text.empty()) return rows;
  for (const ordered_json& j : ordered_json::parse(text)) rows.push_back(row_from_json(j));
  return rows;
}

}  // namespace pf::sweep
