#include "models/training/fault_impact.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "core/error.h"

namespace pf::models::training {
namespace {

// Layout of one rank's figures: sums [busy per stage, all GPUs | busy per
// (fault, stage) of the fault's GPUs | link bytes per fault], then maxima
// [link busy per fault].
struct FigureLayout {
  std::size_t stages, faults;
  std::size_t own() const { return stages; }
  std::size_t bytes() const { return stages + faults * stages; }
  std::size_t sums() const { return bytes() + faults; }
  std::size_t size() const { return sums() + faults; }
};

FigureLayout figure_layout(const TrainingSetup& setup) {
  return {static_cast<std::size_t>(setup.layout().group_size(workload::GroupKind::pp)),
          setup.experiment().faults.size()};
}

// Element-wise sums (then maxima) of one vector per rank.
std::vector<std::int64_t> combine(const std::vector<std::vector<std::int64_t>>& per_rank, const FigureLayout& fl) {
  std::vector<std::int64_t> out(fl.size(), 0);
  for (const std::vector<std::int64_t>& v : per_rank) {
    if (v.size() != out.size()) throw SimulationError("faults: ranks disagree on the number of fault figures");
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = i < fl.sums() ? out[i] + v[i] : std::max(out[i], v[i]);
  }
  return out;
}

}  // namespace

std::vector<std::int64_t> fault_figures(const TrainingSetup& setup, const partition::RankMapping& mapping, int rank,
                                        const TrainingModel& model) {
  const ExperimentSpec& e = setup.experiment();
  const workload::RankLayout& layout = setup.layout();
  const network::Network& net = setup.network();
  const FigureLayout fl = figure_layout(setup);
  const auto stage_of = [&](int gpu) { return static_cast<std::size_t>(layout.coords(gpu).pp); };
  std::vector<std::int64_t> mine(fl.size(), 0);
  std::vector<std::int64_t> busy_of(static_cast<std::size_t>(layout.world_size()), -1);
  // A representative's busy time stands for its folded replicas' too (replica_folding.h).
  const std::vector<int>& weight = setup.folding().weight;
  for (const GpuExecutor& g : model.gpus()) {
    busy_of[static_cast<std::size_t>(g.gpu())] = g.time().busy_ps();
    mine[stage_of(g.gpu())] += weight[static_cast<std::size_t>(g.gpu())] * g.time().busy_ps();
  }
  for (std::size_t i = 0; i < fl.faults; ++i) {
    for (int g : e.faults[i].gpus)
      if (busy_of[static_cast<std::size_t>(g)] >= 0)
        mine[fl.own() + i * fl.stages + stage_of(g)] += busy_of[static_cast<std::size_t>(g)];
    if (net.config().mode != NetworkMode::packet) continue;
    for (network::LinkId l : setup.fault_reach()[i].link_ids) {
      if (mapping.vertex_rank[static_cast<std::size_t>(net.transmitter(l))] != rank) continue;
      const network::LinkCounters& c = net.counters(l);
      mine[fl.bytes() + i] += static_cast<std::int64_t>(c.bytes);
      mine[fl.sums() + i] = std::max(mine[fl.sums() + i], c.busy_ps);
    }
  }
  return mine;
}

std::vector<FaultImpact> fault_impacts(const TrainingSetup& setup, std::uint32_t binding_gpu,
                                       const std::vector<std::vector<std::int64_t>>& per_rank) {
  const ExperimentSpec& e = setup.experiment();
  const workload::RankLayout& layout = setup.layout();
  const std::vector<network::FaultReach>& reach = setup.fault_reach();
  const FigureLayout fl = figure_layout(setup);
  const std::size_t nf = fl.faults, stages = fl.stages, own = fl.own(), bytes = fl.bytes(), sums = fl.sums();
  const auto stage_of = [&](int gpu) { return static_cast<std::size_t>(layout.coords(gpu).pp); };
  const std::vector<std::int64_t> all = combine(per_rank, fl);

  std::vector<std::int64_t> stage_gpus(stages, 0);
  for (int g = 0; g < layout.world_size(); ++g) ++stage_gpus[stage_of(g)];
  std::vector<FaultImpact> out(nf);
  for (std::size_t i = 0; i < nf; ++i) {
    const FaultSpec& f = e.faults[i];
    FaultImpact& o = out[i];
    o.gpus = reach[i].gpus;
    o.links = reach[i].links;
    o.failed_links = reach[i].failed_links;
    o.servers = reach[i].servers;
    o.on_binding_gpu = std::binary_search(f.gpus.begin(), f.gpus.end(), static_cast<int>(binding_gpu));
    if (!f.gpus.empty()) {
      // Peers: the other GPUs of each of the fault's GPUs' stages (other faults may touch them).
      std::vector<std::int64_t> own_gpus(stages, 0);
      for (int g : f.gpus) ++own_gpus[stage_of(g)];
      double own_busy = 0, peer_busy = 0;
      o.extra_known = true;
      for (std::size_t st = 0; st < stages; ++st) {
        if (own_gpus[st] == 0) continue;
        const std::int64_t own_sum = all[own + i * stages + st];
        const std::int64_t peers = stage_gpus[st] - own_gpus[st];
        own_busy += static_cast<double>(own_sum);
        if (peers > 0) peer_busy += static_cast<double>(own_gpus[st]) * static_cast<double>(all[st] - own_sum) / static_cast<double>(peers);
        o.extra_known = o.extra_known && peers > 0;
      }
      if (o.extra_known) o.extra_compute_s = (own_busy - peer_busy) / static_cast<double>(f.gpus.size()) * 1e-12;
    }
    o.link_bytes = static_cast<std::uint64_t>(all[bytes + i]);
    o.link_busy_s = static_cast<double>(all[sums + i]) * 1e-12;
  }
  return out;
}

}  // namespace pf::models::training
