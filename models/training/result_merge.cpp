#include "models/training/result_merge.h"

#include <algorithm>
#include <limits>
#include <string>

#include "core/error.h"
#include "models/compute/compute_op.h"
#include "models/training/fault_impact.h"

namespace pf::models::training {
namespace {

using workload::OpKind;

const char* class_name(OpKind kind) {
  switch (workload::op_class(kind)) {
    case workload::OpClass::gemm: return "gemm";
    case workload::OpClass::attention: return "attention";
    case workload::OpClass::norm: return "norm";
    case workload::OpClass::elementwise: return "elementwise";
    case workload::OpClass::collective: return "collective";
    case workload::OpClass::p2p: return "p2p";
    case workload::OpClass::host_copy: return "host_copy";
  }
  return "?";
}

// Every rank's stuck GPUs, up to 8 in all: the iteration deadlocked.
void check_all_finished(const std::vector<RankFigures>& ranks) {
  std::string all;
  int count = 0;
  for (const RankFigures& r : ranks) {
    if (r.stuck.empty()) continue;
    if (count++ < 8) all += (all.empty() ? "" : "; ") + r.stuck;
  }
  if (!all.empty())
    throw SimulationError("training: the iteration deadlocked, GPUs never finished their programs: " + all);
}

// The binding GPU over every rank's candidate (BindingKey: the most own
// work, i.e. the slowest pipeline stage's slowest GPU; then the later end,
// then the lower id); its rank's figures.
const RankFigures& binding_rank(const std::vector<RankFigures>& ranks) {
  const RankFigures* best = nullptr;
  for (const RankFigures& r : ranks) {
    if (r.fixed.end_ps < 0) continue;
    if (best == nullptr || r.fixed.binding.binds_before(best->fixed.binding)) best = &r;
  }
  if (best == nullptr) throw SimulationError("training: no rank simulated a GPU");
  return *best;
}

// Each stage's most own work over every rank's GPUs in it.
std::vector<double> stage_work(const std::vector<RankFigures>& ranks) {
  std::vector<std::int64_t> most;
  for (const RankFigures& r : ranks) {
    if (most.size() < r.stage_work_ps.size()) most.resize(r.stage_work_ps.size(), -1);
    for (std::size_t s = 0; s < r.stage_work_ps.size(); ++s) most[s] = std::max(most[s], r.stage_work_ps[s]);
  }
  std::vector<double> seconds;
  for (const std::int64_t ps : most) seconds.push_back(static_cast<double>(std::max<std::int64_t>(ps, 0)) * 1e-12);
  return seconds;
}

// When the last GPU finishes its last op: the step.
std::int64_t step_end_ps(const std::vector<RankFigures>& ranks) {
  std::int64_t end = -1;
  for (const RankFigures& r : ranks) end = std::max(end, r.fixed.end_ps);
  return end;
}

LongestCollective longest_collective(const std::vector<RankFigures>& ranks) {
  LongestOp best;
  for (const RankFigures& r : ranks) {
    const LongestOp& other = r.fixed.longest;
    if (other.ps > best.ps || (other.ps == best.ps && other.ps >= 0 && other.gpu < best.gpu)) best = other;
  }
  LongestCollective out;
  if (best.ps < 0) return out;
  out.kind = std::string(workload::kind_name(best.op.kind));
  out.group = workload::RankLayout::group_name(best.op.group);
  out.bytes = best.op.bytes;
  out.seconds = static_cast<double>(best.ps) * 1e-12;
  out.gpu = best.gpu;
  out.layer = best.op.layer;
  out.microbatch = best.op.microbatch;
  return out;
}

void fill_bottlenecks(RunResult& r, const GpuFigures& f) {
  std::vector<KindTime> kinds;
  for (int k = 0; k < workload::kOpKindCount; ++k) {
    const auto i = static_cast<std::size_t>(k);
    if (f.stats.kinds[i].count == 0) continue;
    kinds.push_back({std::string(workload::kind_name(static_cast<OpKind>(k))),
                     static_cast<double>(f.stats.kinds[i].ps) * 1e-12, f.stats.kinds[i].count});
  }
  std::stable_sort(kinds.begin(), kinds.end(), [](const KindTime& a, const KindTime& b) { return a.seconds > b.seconds; });
  // The op class holding the most compute time; communication when its exposed
  // part outweighs every compute class.
  std::vector<std::pair<std::string, double>> classes;
  for (int k = 0; k < workload::kOpKindCount; ++k) {
    const auto kind = static_cast<OpKind>(k);
    if (workload::stream_of(kind) != workload::Stream::compute) continue;
    const double s = static_cast<double>(f.stats.kinds[static_cast<std::size_t>(k)].ps) * 1e-12;
    auto it = std::find_if(classes.begin(), classes.end(), [&](const auto& c) { return c.first == class_name(kind); });
    if (it == classes.end()) classes.emplace_back(class_name(kind), s);
    else it->second += s;
  }
  classes.emplace_back("collective", static_cast<double>(f.exposed_ps) * 1e-12);
  classes.emplace_back("pipeline_wait", static_cast<double>(f.p2p_wait_ps) * 1e-12);
  classes.emplace_back("host", static_cast<double>(f.host_wait_ps) * 1e-12);
  classes.emplace_back("offload_wait", static_cast<double>(f.offload_wait_ps) * 1e-12);
  r.dominant_op_type =
      std::max_element(classes.begin(), classes.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
  if (kinds.size() > 5) kinds.resize(5);
  r.top_ops = std::move(kinds);
}

void fill_uncertainty(RunResult& r, const GpuFigures& f) {
  const double compute = static_cast<double>(f.busy_ps);
  r.uncertainty.calibrated_fraction = compute > 0 ? static_cast<double>(f.stats.measured_ps) / compute : 0;
  for (int k = 0; k < workload::kOpKindCount; ++k) {
    const auto kind = static_cast<OpKind>(k);
    if (workload::stream_of(kind) != workload::Stream::compute) continue;
    const double s = static_cast<double>(f.stats.kinds[static_cast<std::size_t>(k)].ps) * 1e-12;
    switch (workload::op_class(kind)) {
      case workload::OpClass::gemm: r.uncertainty.gemm_s += s; break;
      case workload::OpClass::attention: r.uncertainty.attention_s += s; break;
      case workload::OpClass::norm:
      case workload::OpClass::elementwise: r.uncertainty.memory_bound_s += s; break;
      default: break;
    }
  }
  int seen = 0;
  for (unsigned b = 0; b < 4; ++b)
    if (f.stats.bases & (1u << b)) {
      ++seen;
      r.uncertainty.basis = to_string(static_cast<CostBasis>(b));
    }
  if (seen > 1) r.uncertainty.basis = "mixed";
  if (seen == 0) r.uncertainty.basis = "none";
}

void fill_simulation(RunResult& r, const std::vector<RankFigures>& ranks, const partition::RankMapping& mapping,
                     core::SimTime lookahead, const SimulationSpec& sim) {
  std::vector<core::EngineStats> per_rank;
  double peak_rss = 0;
  for (const RankFigures& rank : ranks) {
    per_rank.push_back(rank.fixed.engine);
    peak_rss = std::max(peak_rss, rank.fixed.peak_rss_bytes);
  }
  const core::EngineStats s = core::combine(per_rank);
  SimulationFigures& f = r.simulation;
  f.ranks = static_cast<int>(ranks.size());
  f.events = s.committed_events;
  f.wall_s = s.wall_s;
  f.events_per_s = s.wall_s > 0 ? static_cast<double>(s.committed_events) / s.wall_s : 0;
  f.lookahead_ns = lookahead.is_infinite() ? 0 : static_cast<double>(lookahead.ps) / 1e3;
  f.windows = s.windows;
  f.null_messages = s.null_messages;
  f.partition_cut_edges = static_cast<std::uint64_t>(mapping.report.cut_links);
  f.imbalance = mapping.report.imbalance;
  f.peak_rss_bytes = static_cast<std::uint64_t>(peak_rss);
  f.peak_pending_events = s.peak_pending;
  f.network = network::to_string(sim.network);
  f.sync = sim.sync == SyncMode::window ? "window" : "null_message";
}

void fill_fold(SimulationFigures& f, const ReplicaFolding& fold) {
  f.simulated_gpus = fold.simulated_gpus();
  f.fold = fold.active ? "auto (" + std::to_string(fold.classes) + " of " + std::to_string(fold.replicas) +
                             " replicas simulated)"
                       : fold.reason;
}

}  // namespace

RunResult merge_results(const TrainingSetup& setup, const partition::RankMapping& mapping, core::SimTime lookahead,
                        const std::vector<RankFigures>& ranks) {
  check_all_finished(ranks);
  const ExperimentSpec& e = setup.experiment();
  const workload::RankLayout& layout = setup.layout();
  const memory::PlanSummary& memory = setup.workload().memory;
  RunResult r;
  const RankFigures& binding = binding_rank(ranks);
  r.binding_gpu = binding.fixed.binding.gpu;
  r.binding_stage = layout.coords(static_cast<int>(r.binding_gpu)).pp;
  r.step_time_s = static_cast<double>(step_end_ps(ranks)) * 1e-12;

  const GpuFigures& f = binding.fixed.binding_figures;
  r.forward_s = static_cast<double>(f.stats.phase_compute_ps[0]) * 1e-12;
  r.backward_s = static_cast<double>(f.stats.phase_compute_ps[1]) * 1e-12;
  r.optimizer_s = static_cast<double>(f.stats.phase_compute_ps[2]) * 1e-12;
  r.collective_total_s = static_cast<double>(f.comm_ps) * 1e-12;
  r.collective_exposed_s = static_cast<double>(f.exposed_ps) * 1e-12;
  r.p2p_wait_s = static_cast<double>(f.p2p_wait_ps) * 1e-12;
  r.host_bound_s = static_cast<double>(f.host_wait_ps) * 1e-12;
  r.offload_wait_s = static_cast<double>(f.offload_wait_ps) * 1e-12;
  r.overlap_stretch_s = f.stretch_s;
  r.bubble_s = std::max(0.0, r.step_time_s - static_cast<double>(f.busy_ps + f.exposed_ps + f.host_wait_ps +
                                                                  f.offload_wait_ps) * 1e-12);
  r.pp_stage_work_s = stage_work(ranks);

  r.tokens_per_iteration = static_cast<double>(e.training.global_batch_size * e.training.seq_length);
  r.model_flops = memory.model_flops;
  r.hardware_flops = memory.hardware_flops;
  const auto peak = e.hardware.gpu.peak_tflops.find(e.training.dtype);
  r.peak_tflops = peak == e.hardware.gpu.peak_tflops.end() ? 0 : peak->second;
  r.gpus = layout.world_size();
  r.memory = memory;

  fill_bottlenecks(r, f);
  r.longest_collective = longest_collective(ranks);
  fill_uncertainty(r, f);
  fill_simulation(r, ranks, mapping, lookahead, e.simulation);
  fill_fold(r.simulation, setup.folding());
  r.vertex_rank = mapping.vertex_rank;
  std::vector<core::Statistics> figures;
  for (const RankFigures& rank : ranks) figures.push_back(rank.figures);
  r.figures = core::Statistics::combine(figures);
  if (!e.faults.empty()) {
    std::vector<std::vector<std::int64_t>> faults;
    for (const RankFigures& rank : ranks) faults.push_back(rank.faults);
    r.faults = fault_impacts(setup, r.binding_gpu, faults);
  }
  return r;
}

}  // namespace pf::models::training
