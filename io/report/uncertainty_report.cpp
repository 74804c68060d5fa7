#include "io/report/uncertainty_report.h"

#include <string>

namespace pf::report {

using nlohmann::ordered_json;

namespace {

ordered_json percentiles_json(const models::uncertainty::Percentiles& p) {
  return {{"p10", p.p10}, {"p50", p.p50}, {"p90", p.p90}};
}

ordered_json sensitivity_json(const models::uncertainty::Sensitivity& s) {
  return {{"parameter", s.key},
          {"label", s.label},
          {"value_low", s.value_low},
          {"value_high", s.value_high},
          {"step_time_ms_at_low", s.step_ms_low},
          {"step_time_ms_at_high", s.step_ms_high},
          {"swing_ms", s.swing_ms},
          {"rank_correlation", s.correlation},
          {"prior", s.measured ? "measured" : s.from_preset ? "preset" : "default"},
          {"source", s.source},
          {"measure", s.measure}};
}

}  // namespace

ordered_json model_error_json(const models::uncertainty::ModelError& e) {
  return {{"stratum", e.stratum}, {"rows", e.rows}, {"p10", e.multiplier(0.10)}, {"p50", e.multiplier(0.50)},
          {"p90", e.multiplier(0.90)}, {"source", e.source}};
}

void add_uncertainty_band(ordered_json& report, const models::uncertainty::Band& band) {
  ordered_json& u = report["uncertainty"];
  u["method"] = "latin_hypercube";
  u["samples"] = band.samples;
  u["failed_samples"] = band.failed;
  u["seed"] = band.seed;
  u["p10"] = band.step_ms.p10;
  u["p50"] = band.step_ms.p50;
  u["p90"] = band.step_ms.p90;
  u["mfu"] = percentiles_json(band.mfu);
  u["tokens_per_s"] = percentiles_json(band.tokens_per_s);
  ordered_json list = ordered_json::array();
  for (const auto& s : band.sensitivity) list.push_back(sensitivity_json(s));
  u["sensitivity"] = std::move(list);
  // The measurement that would most narrow the estimate: the largest swing
  // among the parameters not already measured.
  u["narrow_first"] = nullptr;
  for (const auto& s : band.sensitivity) {
    if (s.measured || s.swing_ms <= 0) continue;
    u["narrow_first"] = {{"parameter", s.key}, {"measure", s.measure}, {"swing_ms", s.swing_ms}};
    break;
  }
}

}  // namespace pf::report
