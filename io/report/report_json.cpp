#include "io/report/report_json.h"

#include "io/report/fault_report.h"
#include "io/report/report_figures.h"
#include "io/report/uncertainty_report.h"
#include "models/compute/gpu_variability.h"
#include "models/uncertainty/linear_band.h"

#include <string>

namespace pf::report {

namespace {

using nlohmann::ordered_json;
using models::training::RunResult;

constexpr double kMs = 1e3;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// a / b, or 0 where b is not positive: an empty run has no rate.
double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

ordered_json memory_json(const models::memory::PlanSummary& m) {
  ordered_json j = {{"parameters_gb", m.parameters_gb},
                    {"gradients_gb", m.gradients_gb},
                    {"optimizer_gb", m.optimizer_gb},
                    {"activations_gb", m.activations_gb},
                    {"comm_buffers_gb", m.comm_buffers_gb}};
  if (m.host_activations_gb > 0) j["host_activations_gb"] = m.host_activations_gb;
  return j;
}

ordered_json oom_json(const std::optional<models::memory::PlanSummary::Oom>& oom) {
  if (!oom) return nullptr;
  return {{"capacity_gb", oom->capacity_gb}, {"required_gb", oom->required_gb}, {"excess_gb", oom->excess_gb}};
}

ordered_json longest_collective_json(const models::training::LongestCollective& c) {
  if (c.kind.empty()) return nullptr;
  return {{"kind", c.kind},   {"group", c.group}, {"bytes", c.bytes},          {"ms", c.seconds * kMs},
          {"gpu", c.gpu},     {"layer", c.layer}, {"microbatch", c.microbatch}};
}

ordered_json bottlenecks_json(const RunResult& r) {
  ordered_json top = ordered_json::array();
  for (const auto& k : r.top_ops) top.push_back({{"kind", k.kind}, {"ms", k.seconds * kMs}, {"count", k.count}});
  return {{"dominant_op_type", r.dominant_op_type},
          {"top_ops_by_time", std::move(top)},
          {"longest_collective", longest_collective_json(r.longest_collective)},
          {"binding_pp_stage", r.binding_stage}};
}

// The cheap band: the priors to first order over the binding GPU's time
// (models/uncertainty/linear_band.h); `--uncertainty N` adds the sampled one.
ordered_json uncertainty_json(const RunResult& r, const models::ExperimentSpec& e, const models::SlowestGpu& slowest) {
  const models::training::Uncertainty& u = r.uncertainty;
  models::uncertainty::StepShares s;
  s.step = r.step_time_s;
  s.gemm = u.gemm_s;
  s.attention = u.attention_s;
  s.memory_bound = u.memory_bound_s;
  s.collective_total = r.collective_total_s;
  s.collective_exposed = r.collective_exposed_s;
  s.host_bound = r.host_bound_s;
  s.part_spread = slowest.part;
  s.lockstep_fluctuation = slowest.fluctuation;
  const models::uncertainty::ModelError* error = models::uncertainty::model_error_prior(e);
  const models::uncertainty::LinearBand band =
      models::uncertainty::linear_band(models::uncertainty::priors_for(e), s, error);
  return {{"step_time_ms_low", band.low * kMs},
          {"step_time_ms_high", band.high * kMs},
          {"basis", u.basis},
          {"calibrated_fraction", u.calibrated_fraction},
          {"band_covers", band.covers},
          {"model_error", error != nullptr ? model_error_json(*error) : nullptr}};
}

ordered_json simulation_json(const models::training::SimulationFigures& s) {
  return {{"ranks", s.ranks},
          {"events", s.events},
          {"wall_s", s.wall_s},
          {"events_per_s", s.events_per_s},
          {"lookahead_ns", s.lookahead_ns},
          {"windows", s.windows},
          {"null_messages", s.null_messages},
          {"partition_cut_edges", s.partition_cut_edges},
          {"imbalance", s.imbalance},
          {"peak_rss_gb", static_cast<double>(s.peak_rss_bytes) / kGiB},
          {"peak_pending_events", s.peak_pending_events},
          {"network", s.network},
          {"sync", s.sync},
          {"fold", s.fold},
          {"simulated_gpus", s.simulated_gpus}};
}

// Both FLOP rates per GPU in TFLOP/s.
double tflops_per_gpu(double flops, const RunResult& r) {
  return ratio(ratio(flops, r.step_time_s), static_cast<double>(r.gpus)) / 1e12;
}

}  // namespace

ordered_json report_json(const RunResult& r, const models::ExperimentSpec& e, std::string_view version,
                         std::string_view config_sha256) {
  const double model_tflops = tflops_per_gpu(r.model_flops, r);
  const double hardware_tflops = tflops_per_gpu(r.hardware_flops, r);
  ordered_json j;
  j["step_time_ms"] = r.step_time_s * kMs;
  j["forward_ms"] = r.forward_s * kMs;
  j["backward_ms"] = r.backward_s * kMs;
  j["optimizer_ms"] = r.optimizer_s * kMs;
  j["collective_total_ms"] = r.collective_total_s * kMs;
  j["collective_exposed_ms"] = r.collective_exposed_s * kMs;
  j["tokens_per_s"] = ratio(r.tokens_per_iteration, r.step_time_s);
  j["model_tflops_per_gpu"] = model_tflops;
  j["hardware_tflops_per_gpu"] = hardware_tflops;
  j["mfu"] = ratio(model_tflops, r.peak_tflops);
  j["hfu"] = ratio(hardware_tflops, r.peak_tflops);
  j["peak_memory_gb"] = r.memory.peak_memory_gb;
  j["pp_stage_memory_gb"] = r.memory.pp_stage_memory_gb;
  j["memory"] = memory_json(r.memory);
  j["oom"] = oom_json(r.memory.oom);
  j["bottlenecks"] = bottlenecks_json(r);
  // Every kernel's time is multiplied by it (already inside the phases).
  const models::SlowestGpu slowest_gpu = models::slowest_gpu(e);
  j["uncertainty"] = uncertainty_json(r, e, slowest_gpu);
  j["simulation"] = simulation_json(r.simulation);
  j["config_sha256"] = std::string(config_sha256);
  j["version"] = std::string(version);
  // Extensions, after every key of io/report/README.md's report fields.
  j["name"] = e.name;
  j["gpus"] = r.gpus;
  j["binding_gpu"] = r.binding_gpu;
  j["p2p_wait_ms"] = r.p2p_wait_s * kMs;
  j["bubble_ms"] = r.bubble_s * kMs;
  ordered_json stage_work = ordered_json::array();
  for (const double s : r.pp_stage_work_s) stage_work.push_back(s * kMs);
  j["pp_stage_work_ms"] = std::move(stage_work);
  j["host_bound_ms"] = r.host_bound_s * kMs;
  if (e.training.cpu_offload_layers > 0 || e.training.offload_modules.any()) {
    j["offload_wait_ms"] = r.offload_wait_s * kMs;
    j["host_oom"] = oom_json(r.memory.host_oom);  // null: the offloaded activations fit (or no host_memory_gb)
  }
  j["overlap_stretch_ms"] = r.overlap_stretch_s * kMs;
  j["slowest_gpu_factor"] = slowest_gpu.factor();
  j["lockstep_gpus"] = slowest_gpu.lockstep_gpus;
  if (!e.faults.empty()) j["faults"] = faults_json(r, e);
  write_figures(j, r.figures);
  return j;
}

}  // namespace pf::report
