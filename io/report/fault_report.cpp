#include "io/report/fault_report.h"

#include "io/report/string_format.h"

namespace pf::report {
namespace {

using nlohmann::ordered_json;
using models::FaultTarget;

const char* target_name(FaultTarget t) {
  switch (t) {
    case FaultTarget::gpus: return "gpus";
    case FaultTarget::link: return "link";
    case FaultTarget::switch_vertex: return "switch";
    case FaultTarget::random_links: return "random_links";
  }
  return "?";
}

}  // namespace

std::string fault_effect(const models::FaultSpec& f) {
  std::string out;
  const auto add = [&](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
  if (f.target == FaultTarget::gpus) {
    if (f.compute_slowdown != 1.0 || (!f.hardware && f.jitter.sigma == 0)) add(format("compute x%.4g", f.compute_slowdown));
    if (f.hardware) add("hardware " + f.hardware_name);
    if (f.jitter.sigma > 0)
      add(format("jitter %s sigma %.4g seed %llu",
                 f.jitter.distribution == models::JitterDistribution::lognormal ? "lognormal" : "normal",
                 f.jitter.sigma, static_cast<unsigned long long>(f.jitter.seed)));
    return out;
  }
  if (f.target == FaultTarget::random_links)
    add(format("%.4g %% of fabric cables (seed %llu)", 100 * f.fraction, static_cast<unsigned long long>(f.seed)));
  if (f.failed) add("failed");
  if (f.bandwidth_factor != 1.0 || !f.failed) add(format("bandwidth x%.4g", f.bandwidth_factor));
  return out;
}

ordered_json faults_json(const models::training::RunResult& r, const models::ExperimentSpec& e) {
  ordered_json out = ordered_json::array();
  for (std::size_t i = 0; i < r.faults.size() && i < e.faults.size(); ++i) {
    const models::FaultSpec& f = e.faults[i];
    const models::training::FaultImpact& m = r.faults[i];
    ordered_json j;
    j["index"] = i;
    j["target"] = target_name(f.target);
    j["what"] = f.written;
    j["effect"] = fault_effect(f);
    j["gpus"] = m.gpus;
    j["links"] = m.links;
    j["failed_links"] = m.failed_links;
    j["servers"] = m.servers;
    j["on_binding_gpu"] = m.on_binding_gpu;
    j["extra_compute_ms"] = f.target == FaultTarget::gpus && m.extra_known ? ordered_json(m.extra_compute_s * 1e3) : ordered_json(nullptr);
    const bool link_figures = f.target != FaultTarget::gpus && e.simulation.network == models::NetworkMode::packet;
    j["link_busy_ms"] = link_figures ? ordered_json(m.link_busy_s * 1e3) : ordered_json(nullptr);
    j["link_bytes"] = link_figures ? ordered_json(m.link_bytes) : ordered_json(nullptr);
    j["defined_at"] = f.origin;
    out.push_back(std::move(j));
  }
  return out;
}

void add_fault_baseline(ordered_json& report, const models::training::RunResult& base) {
  const double step_ms = report.at("step_time_ms").get<double>();
  const double base_ms = base.step_time_s * 1e3;
  ordered_json j;
  j["step_time_ms"] = base_ms;
  j["binding_gpu"] = base.binding_gpu;
  j["tokens_per_s"] = base.step_time_s > 0 ? base.tokens_per_iteration / base.step_time_s : 0.0;
  j["added_ms"] = step_ms - base_ms;
  j["added_pct"] = base_ms > 0 ? 100 * (step_ms - base_ms) / base_ms : 0.0;
  report["fault_baseline"] = std::move(j);
}

}  // namespace pf::report
