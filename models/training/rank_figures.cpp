#include "models/training/rank_figures.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "core/error.h"
#include "models/training/fault_impact.h"

namespace pf::models::training {

std::int64_t own_work_ps(const GpuFigures& f) { return f.busy_ps + f.host_wait_ps + f.offload_wait_ps; }

bool BindingKey::binds_before(const BindingKey& other) const {
  if (work_ps != other.work_ps) return work_ps > other.work_ps;
  if (end_ps != other.end_ps) return end_ps > other.end_ps;
  return gpu < other.gpu;
}

RankFigures rank_figures(const TrainingSetup& setup, const partition::RankMapping& mapping, int rank,
                         const TrainingModel& model, const core::EngineStats& engine, double peak_rss_bytes) {
  RankFigures r;
  RankFigures::Fixed& f = r.fixed;
  // The layout's stages, not parallelism.pp: an imported SimAI workload brings its own.
  r.stage_work_ps.assign(static_cast<std::size_t>(setup.layout().group_size(workload::GroupKind::pp)), -1);
  int shown = 0;
  for (const GpuExecutor& g : model.gpus()) {
    const auto gpu = static_cast<std::uint32_t>(g.gpu());
    const std::int64_t end = g.stats().end_ps;
    f.end_ps = std::max(f.end_ps, end);
    GpuFigures figures{g.stats(), g.time().busy_ps(), g.time().exposed_ps(), g.time().comm_ps(),
                       g.time().p2p_wait_ps(), g.time().host_wait_ps(), g.time().stretch_s(),
                       g.time().offload_wait_ps()};
    const BindingKey key{own_work_ps(figures), end, gpu};
    std::int64_t& stage = r.stage_work_ps.at(static_cast<std::size_t>(setup.layout().coords(g.gpu()).pp));
    stage = std::max(stage, key.work_ps);
    if (key.binds_before(f.binding)) {
      f.binding = key;
      f.binding_figures = figures;
    }
    if (g.stats().longest_ps > f.longest.ps) f.longest = {g.stats().longest_ps, gpu, g.stats().longest};
    if (!g.finished() && shown++ < 8) r.stuck += (r.stuck.empty() ? "" : "; ") + g.stuck_description();
  }
  f.engine = engine;
  f.peak_rss_bytes = peak_rss_bytes;
  if (!setup.experiment().faults.empty()) r.faults = fault_figures(setup, mapping, rank, model);
  core::publish(engine, r.figures);
  setup.network().publish(r.figures);
  model.publish(r.figures);
  return r;
}

namespace {

void append_int64s(std::string& out, const std::vector<std::int64_t>& values) {
  const std::uint64_t n = values.size();
  out.append(reinterpret_cast<const char*>(&n), sizeof n);
  out.append(reinterpret_cast<const char*>(values.data()), n * sizeof(std::int64_t));
}

// Reads what append_int64s wrote at `at`, moving `at` past it.
std::vector<std::int64_t> read_int64s(const std::string& bytes, std::size_t& at, const char* what) {
  std::uint64_t n = 0;
  if (bytes.size() - at < sizeof n) throw SimulationError(std::string("training: a rank's ") + what + " are truncated");
  std::memcpy(&n, bytes.data() + at, sizeof n);
  at += sizeof n;
  if (n > (bytes.size() - at) / sizeof(std::int64_t))
    throw SimulationError(std::string("training: a rank's ") + what + " are truncated");
  std::vector<std::int64_t> values(n);
  if (n > 0) std::memcpy(values.data(), bytes.data() + at, n * sizeof(std::int64_t));
  at += n * sizeof(std::int64_t);
  return values;
}

}  // namespace

// Layout: Fixed; the fault figures and the stage work, each a count (uint64)
// and its int64s; the registry's length (uint64) and bytes; then the stuck
// text to the end.
std::string encode(const RankFigures& figures) {
  static_assert(std::is_trivially_copyable_v<RankFigures::Fixed>);
  std::string out(sizeof(RankFigures::Fixed), '\0');
  std::memcpy(out.data(), &figures.fixed, sizeof(RankFigures::Fixed));
  append_int64s(out, figures.faults);
  append_int64s(out, figures.stage_work_ps);
  const std::string registry = figures.figures.encode();
  const std::uint64_t length = registry.size();
  out.append(reinterpret_cast<const char*>(&length), sizeof length);
  return out + registry + figures.stuck;
}

RankFigures decode(const std::string& bytes) {
  RankFigures r;
  if (bytes.size() < sizeof(RankFigures::Fixed)) throw SimulationError("training: a rank's figures are truncated");
  std::memcpy(&r.fixed, bytes.data(), sizeof(RankFigures::Fixed));
  std::size_t at = sizeof(RankFigures::Fixed);
  r.faults = read_int64s(bytes, at, "fault figures");
  r.stage_work_ps = read_int64s(bytes, at, "stage figures");
  std::uint64_t length = 0;
  if (bytes.size() - at < sizeof length) throw SimulationError("training: a rank's figures are truncated");
  std::memcpy(&length, bytes.data() + at, sizeof length);
  at += sizeof length;
  if (bytes.size() - at < length) throw SimulationError("training: a rank's registry is truncated");
  r.figures = core::Statistics::decode(bytes.substr(at, length));
  r.stuck = bytes.substr(at + length);
  return r;
}

RunResult::Local local_rows(const TrainingSetup& setup, const partition::RankMapping& mapping, int rank,
                            TrainingModel& model) {
  RunResult::Local local;
  const memory::PlanSummary& memory = setup.workload().memory;
  for (const GpuExecutor& g : model.gpus()) {
    GpuTotals t;
    t.gpu = static_cast<std::uint32_t>(g.gpu());
    t.busy_ps = g.time().busy_ps();
    t.exposed_comm_ps = g.time().exposed_ps();
    t.comm_ps = g.time().comm_ps();
    t.p2p_wait_ps = g.time().p2p_wait_ps();
    t.end_ps = g.stats().end_ps;
    const auto stage = static_cast<std::size_t>(setup.layout().coords(g.gpu()).pp);
    if (stage < memory.pp_stage_memory_gb.size())
      t.peak_memory_bytes = static_cast<std::uint64_t>(memory.pp_stage_memory_gb[stage] * 1073741824.0);
    local.gpus.push_back(t);
  }
  local.ops = std::move(model.records());
  const network::Network& net = setup.network();
  if (net.config().mode != NetworkMode::packet) return local;
  const network::ClusterGraph& graph = setup.graph();
  for (int l = 0; l < graph.link_count(); ++l) {
    const auto src = static_cast<std::size_t>(net.transmitter(l));
    if (mapping.vertex_rank[src] != rank) continue;
    const network::LinkCounters& c = net.counters(l);
    local.links.push_back({static_cast<std::uint32_t>(l), c.busy_ps, c.bytes, c.peak_queue_bytes});
  }
  return local;
}

}  // namespace pf::models::training
