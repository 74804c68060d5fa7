#include "models/training/fault_impact.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace pf::models::training {
namespace {

// Element-wise integer sums (and maxima) of one vector per rank.
std::vector<std::int64_t> combine(const core::Communicator& comm, const std::vector<std::int64_t>& mine,
                                  std::size_t sum_count) {
  std::string bytes(mine.size() * sizeof(std::int64_t), '\0');
  std::memcpy(bytes.data(), mine.data(), bytes.size());
  std::vector<std::int64_t> out(mine.size(), 0);
  for (const std::string& other : comm.all_gather(bytes)) {
    std::vector<std::int64_t> v(mine.size());
    std::memcpy(v.data(), other.data(), other.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = i < sum_count ? out[i] + v[i] : std::max(out[i], v[i]);
  }
  return out;
}

}  // namespace

std::vector<FaultImpact> fault_impacts(const core::Communicator& comm, const ExperimentSpec& e,
                                       const workload::RankLayout& layout, const std::vector<partition::FaultReach>& reach,
                                       const partition::RankMapping& mapping, std::uint32_t binding_gpu,
                                       const TrainingModel& model, const network::Network& net) {
  const std::size_t nf = e.faults.size();
  const std::size_t stages = static_cast<std::size_t>(layout.group_size(workload::GroupKind::pp));
  std::vector<char> faulted(static_cast<std::size_t>(layout.world_size()), 0);
  for (const FaultSpec& f : e.faults)
    if (f.target == FaultTarget::gpus)
      for (int g : f.gpus) faulted[static_cast<std::size_t>(g)] = 1;

  // Sums: [fault busy (nf) | healthy busy per stage | healthy count per stage | link bytes (nf)]; then maxima: link busy (nf).
  const std::size_t sums = nf + 2 * stages + nf;
  std::vector<std::int64_t> mine(sums + nf, 0);
  std::vector<std::int64_t> busy_of(static_cast<std::size_t>(layout.world_size()), -1);
  for (const GpuExecutor& g : model.gpus()) {
    busy_of[static_cast<std::size_t>(g.gpu())] = g.time().busy_ps();
    if (faulted[static_cast<std::size_t>(g.gpu())]) continue;
    const auto stage = static_cast<std::size_t>(layout.coords(g.gpu()).pp);
    mine[nf + stage] += g.time().busy_ps();
    mine[nf + stages + stage] += 1;
  }
  for (std::size_t i = 0; i < nf; ++i) {
    for (int g : e.faults[i].gpus)
      if (busy_of[static_cast<std::size_t>(g)] >= 0) mine[i] += busy_of[static_cast<std::size_t>(g)];
    if (net.config().mode != NetworkMode::packet) continue;
    for (partition::LinkId l : reach[i].link_ids) {
      if (mapping.vertex_rank[static_cast<std::size_t>(net.graph().link(l).src)] != comm.rank()) continue;
      const network::LinkCounters& c = net.counters(l);
      mine[nf + 2 * stages + i] += static_cast<std::int64_t>(c.bytes);
      mine[sums + i] = std::max(mine[sums + i], c.busy_ps);
    }
  }
  const std::vector<std::int64_t> all = combine(comm, mine, sums);

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
      // Healthy peers' mean busy time in each of the fault's GPUs' stages.
      double peers = 0;
      o.extra_known = true;
      for (int g : f.gpus) {
        const auto stage = static_cast<std::size_t>(layout.coords(g).pp);
        const std::int64_t count = all[nf + stages + stage];
        if (count > 0) peers += static_cast<double>(all[nf + stage]) / static_cast<double>(count);
        o.extra_known = o.extra_known && count > 0;
      }
      if (o.extra_known) o.extra_compute_s = (static_cast<double>(all[i]) - peers) / static_cast<double>(f.gpus.size()) * 1e-12;
    }
    o.link_bytes = static_cast<std::uint64_t>(all[nf + 2 * stages + i]);
    o.link_busy_s = static_cast<double>(all[sums + i]) * 1e-12;
  }
  return out;
}

void check_fault_memory(const ExperimentSpec& e, const workload::RankLayout& layout, memory::PlanSummary& memory) {
  if (memory.oom || memory.pp_stage_memory_gb.empty()) return;
  for (const FaultSpec& f : e.faults) {
    if (!f.hardware) continue;
    const double capacity = f.hardware->gpu.memory_gb;
    for (int g : f.gpus) {
      const auto stage = static_cast<std::size_t>(layout.coords(g).pp);
      if (stage >= memory.pp_stage_memory_gb.size()) continue;
      const double need = memory.pp_stage_memory_gb[stage];
      if (need > capacity && (!memory.oom || capacity < memory.oom->capacity_gb))
        memory.oom = memory::PlanSummary::Oom{capacity, need, need - capacity};
    }
  }
}

}  // namespace pf::models::training
