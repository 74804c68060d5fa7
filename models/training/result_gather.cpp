#include "models/training/result_gather.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "core/error.h"
#include "models/compute/compute_op.h"

namespace pf::models::training {
namespace {

using workload::OpKind;

// Trivially copyable values travel between ranks as bytes in all_gather's strings.
template <class T>
std::string to_bytes(const T& value) {
  static_assert(std::is_trivially_copyable_v<T>);
  return std::string(reinterpret_cast<const char*>(&value), sizeof(T));
}
template <class T>
T from_bytes(const std::string& s) {
  T value{};
  std::memcpy(&value, s.data(), sizeof(T));
  return value;
}

// The binding GPU's figures, sent by the rank that simulated it.
struct BindingFigures {
  GpuStats stats;
  std::int64_t busy_ps = 0, exposed_ps = 0, comm_ps = 0, p2p_wait_ps = 0, host_wait_ps = 0;
};

struct Longest {
  std::int64_t ps = -1;
  std::uint32_t gpu = 0;
  workload::Op op;
};

double peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) * 1024.0;  // Linux reports KiB
}

const char* class_name(OpKind kind) {
  switch (workload::op_class(kind)) {
    case workload::OpClass::gemm: return "gemm";
    case workload::OpClass::attention: return "attention";
    case workload::OpClass::norm: return "norm";
    case workload::OpClass::elementwise: return "elementwise";
    case workload::OpClass::collective: return "collective";
    case workload::OpClass::p2p: return "p2p";
  }
  return "?";
}

BindingFigures binding_figures(const core::Communicator& comm, const TrainingModel& model, std::uint32_t gpu) {
  std::string mine;
  for (const GpuExecutor& g : model.gpus()) {
    if (static_cast<std::uint32_t>(g.gpu()) != gpu) continue;
    BindingFigures f;
    f.stats = g.stats();
    f.busy_ps = g.time().busy_ps();
    f.exposed_ps = g.time().exposed_ps();
    f.comm_ps = g.time().comm_ps();
    f.p2p_wait_ps = g.time().p2p_wait_ps();
    f.host_wait_ps = g.time().host_wait_ps();
    mine = to_bytes(f);
  }
  for (const std::string& s : comm.all_gather(mine))
    if (!s.empty()) return from_bytes<BindingFigures>(s);
  throw SimulationError("training: no rank simulated the binding GPU " + std::to_string(gpu));
}

LongestCollective longest_collective(const core::Communicator& comm, const TrainingModel& model) {
  Longest best;
  for (const GpuExecutor& g : model.gpus())
    if (g.stats().longest_ps > best.ps) best = {g.stats().longest_ps, static_cast<std::uint32_t>(g.gpu()), g.stats().longest};
  for (const std::string& s : comm.all_gather(to_bytes(best))) {
    const Longest other = from_bytes<Longest>(s);
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

void fill_bottlenecks(RunResult& r, const BindingFigures& f) {
  std::vector<KindTime> kinds;
  for (int k = 0; k < workload::kOpKindCount; ++k) {
    const auto i = static_cast<std::size_t>(k);
    if (f.stats.kind_count[i] == 0) continue;
    kinds.push_back({std::string(workload::kind_name(static_cast<OpKind>(k))),
                     static_cast<double>(f.stats.kind_ps[i]) * 1e-12, f.stats.kind_count[i]});
  }
  std::stable_sort(kinds.begin(), kinds.end(), [](const KindTime& a, const KindTime& b) { return a.seconds > b.seconds; });
  // The op class holding the most compute time; communication when its exposed
  // part outweighs every compute class.
  std::vector<std::pair<std::string, double>> classes;
  for (int k = 0; k < workload::kOpKindCount; ++k) {
    const auto kind = static_cast<OpKind>(k);
    if (workload::stream_of(kind) != workload::Stream::compute) continue;
    const double s = static_cast<double>(f.stats.kind_ps[static_cast<std::size_t>(k)]) * 1e-12;
    auto it = std::find_if(classes.begin(), classes.end(), [&](const auto& c) { return c.first == class_name(kind); });
    if (it == classes.end()) classes.emplace_back(class_name(kind), s);
    else it->second += s;
  }
  classes.emplace_back("collective", static_cast<double>(f.exposed_ps) * 1e-12);
  classes.emplace_back("pipeline_wait", static_cast<double>(f.p2p_wait_ps) * 1e-12);
  classes.emplace_back("host", static_cast<double>(f.host_wait_ps) * 1e-12);
  r.dominant_op_type =
      std::max_element(classes.begin(), classes.end(), [](const auto& a, const auto& b) { return a.second < b.second; })->first;
  if (kinds.size() > 5) kinds.resize(5);
  r.top_ops = std::move(kinds);
}

void fill_uncertainty(RunResult& r, const BindingFigures& f) {
  const double spread = f.stats.uncertainty_ps * 1e-12;
  r.uncertainty.low_s = std::max(0.0, r.step_time_s - spread);
  r.uncertainty.high_s = r.step_time_s + spread;
  const double compute = static_cast<double>(f.busy_ps);
  r.uncertainty.calibrated_fraction = compute > 0 ? static_cast<double>(f.stats.measured_ps) / compute : 0;
  int seen = 0;
  for (unsigned b = 0; b < 4; ++b)
    if (f.stats.bases & (1u << b)) {
      ++seen;
      r.uncertainty.basis = to_string(static_cast<CostBasis>(b));
    }
  if (seen > 1) r.uncertainty.basis = "mixed";
  if (seen == 0) r.uncertainty.basis = "none";
}

void fill_local(RunResult& r, const workload::RankLayout& layout, const memory::PlanSummary& memory,
                const network::ClusterGraph& graph, const partition::RankMapping& mapping, int rank,
                TrainingModel& model, const network::Network& net) {
  for (const GpuExecutor& g : model.gpus()) {
    GpuTotals t;
    t.gpu = static_cast<std::uint32_t>(g.gpu());
    t.busy_ps = g.time().busy_ps();
    t.exposed_comm_ps = g.time().exposed_ps();
    t.comm_ps = g.time().comm_ps();
    t.p2p_wait_ps = g.time().p2p_wait_ps();
    t.end_ps = g.stats().end_ps;
    const auto stage = static_cast<std::size_t>(layout.coords(g.gpu()).pp);
    if (stage < memory.pp_stage_memory_gb.size())
      t.peak_memory_bytes = static_cast<std::uint64_t>(memory.pp_stage_memory_gb[stage] * 1073741824.0);
    r.local.gpus.push_back(t);
  }
  r.local.ops = std::move(model.records());
  if (net.config().mode != NetworkMode::packet) return;
  for (int l = 0; l < graph.link_count(); ++l) {
    const auto src = static_cast<std::size_t>(graph.link(l).src);
    if (mapping.vertex_rank[src] != rank) continue;
    const network::LinkCounters& c = net.counters(l);
    r.local.links.push_back({static_cast<std::uint32_t>(l), c.busy_ps, c.bytes, c.peak_queue_bytes});
  }
}

void fill_simulation(RunResult& r, const core::Communicator& comm, const partition::RankMapping& mapping,
                     const core::Engine& engine, const SimulationSpec& sim) {
  const core::EngineStats s = engine.global_stats();
  SimulationFigures& f = r.simulation;
  f.ranks = comm.size();
  f.events = s.committed_events;
  f.wall_s = s.wall_s;
  f.events_per_s = s.wall_s > 0 ? static_cast<double>(s.committed_events) / s.wall_s : 0;
  f.lookahead_ns = engine.config().lookahead.is_infinite() ? 0 : static_cast<double>(engine.config().lookahead.ps) / 1e3;
  f.windows = s.windows;
  f.null_messages = s.null_messages;
  f.partition_cut_edges = static_cast<std::uint64_t>(mapping.report.cut_links);
  f.imbalance = mapping.report.imbalance;
  f.peak_rss_bytes = static_cast<std::uint64_t>(comm.max(peak_rss_bytes()));
  f.peak_pending_events = s.peak_pending;
  f.network = network::to_string(sim.network);
  f.sync = sim.sync == SyncMode::window ? "window" : "null_message";
}

}  // namespace

void check_all_finished(const core::Communicator& comm, const TrainingModel& model) {
  std::string stuck;
  int shown = 0;
  for (const GpuExecutor& g : model.gpus())
    if (!g.finished() && shown++ < 8) stuck += (stuck.empty() ? "" : "; ") + g.stuck_description();
  std::string all;
  int count = 0;
  for (const std::string& s : comm.all_gather(stuck)) {
    if (s.empty()) continue;
    if (count++ < 8) all += (all.empty() ? "" : "; ") + s;
  }
  if (!all.empty())
    throw SimulationError("training: the iteration deadlocked, GPUs never finished their programs: " + all);
}

RunResult gather_results(const core::Communicator& comm, const ExperimentSpec& e, const workload::RankLayout& layout,
                         const memory::PlanSummary& memory, const network::ClusterGraph& graph,
                         const partition::RankMapping& mapping, const core::Engine& engine, TrainingModel& model,
                         const network::Network& net) {
  RunResult r;
  std::int64_t local_end = 0;
  for (const GpuExecutor& g : model.gpus()) local_end = std::max(local_end, g.stats().end_ps);
  const std::int64_t step_ps = comm.max(local_end);
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  for (const GpuExecutor& g : model.gpus())
    if (g.stats().end_ps == step_ps) first = std::min<std::int64_t>(first, g.gpu());
  r.binding_gpu = static_cast<std::uint32_t>(comm.min(first));
  r.binding_stage = layout.coords(static_cast<int>(r.binding_gpu)).pp;
  r.step_time_s = static_cast<double>(step_ps) * 1e-12;

  const BindingFigures f = binding_figures(comm, model, r.binding_gpu);
  r.forward_s = static_cast<double>(f.stats.phase_compute_ps[0]) * 1e-12;
  r.backward_s = static_cast<double>(f.stats.phase_compute_ps[1]) * 1e-12;
  r.optimizer_s = static_cast<double>(f.stats.phase_compute_ps[2]) * 1e-12;
  r.collective_total_s = static_cast<double>(f.comm_ps) * 1e-12;
  r.collective_exposed_s = static_cast<double>(f.exposed_ps) * 1e-12;
  r.p2p_wait_s = static_cast<double>(f.p2p_wait_ps) * 1e-12;
  r.host_bound_s = static_cast<double>(f.host_wait_ps) * 1e-12;
  r.bubble_s = std::max(0.0, r.step_time_s - static_cast<double>(f.busy_ps + f.exposed_ps + f.host_wait_ps) * 1e-12);

  r.tokens_per_iteration = static_cast<double>(e.training.global_batch_size * e.training.seq_length);
  r.model_flops = memory.model_flops;
  r.hardware_flops = memory.hardware_flops;
  const auto peak = e.hardware.gpu.peak_tflops.find(e.training.dtype);
  r.peak_tflops = peak == e.hardware.gpu.peak_tflops.end() ? 0 : peak->second;
  r.gpus = layout.world_size();
  r.memory = memory;

  fill_bottlenecks(r, f);
  r.longest_collective = longest_collective(comm, model);
  fill_uncertainty(r, f);
  fill_simulation(r, comm, mapping, engine, e.simulation);
  fill_local(r, layout, memory, graph, mapping, comm.rank(), model, net);
  return r;
}

}  // namespace pf::models::training
