#include "models/memory/plan_summary.h"

#include "models/workload/flop_count.h"
#include "models/workload/param_count.h"
#include "models/workload/rank_layout.h"

namespace pf::models::memory {
namespace {

// A fault's replacement GPUs with less memory than their stage needs make the
// plan out of memory (the smallest such GPU gives the verdict's capacity).
void check_fault_memory(const ExperimentSpec& e, PlanSummary& s) {
  if (s.oom) return;
  const workload::RankLayout layout(e.parallelism);
  for (const FaultSpec& f : e.faults) {
    if (!f.hardware) continue;
    const double capacity = f.hardware->gpu.memory_gb;
    for (int g : f.gpus) {
      const auto stage = static_cast<std::size_t>(layout.coords(g).pp);
      if (stage >= s.pp_stage_memory_gb.size()) continue;
      const double need = s.pp_stage_memory_gb[stage];
      if (need > capacity && (!s.oom || capacity < s.oom->capacity_gb)) s.oom = PlanSummary::Oom{capacity, need, need - capacity};
    }
  }
}

}  // namespace

PlanSummary summarize_plan(const ExperimentSpec& e) {
  workload::WorkloadPlan plan(e);
  PlanSummary s;
  workload::ParameterCount params = workload::count_parameters(e.model, e.training.seq_length);
  s.parameters = params.total;
  s.active_parameters = params.active;
  workload::FlopCount flops = workload::count_flops(e.model, e.parallelism, e.training);
  s.model_flops = flops.model_flops;
  s.hardware_flops = flops.hardware_flops;
  MemoryPlan mem = plan_memory(plan, e.hardware.gpu.memory_gb);
  for (const StageMemory& st : mem.stages) s.pp_stage_memory_gb.push_back(st.total_gib());
  const StageMemory& top = mem.heaviest();
  s.parameters_gb = to_gib(top.parameters);
  s.gradients_gb = to_gib(top.gradients);
  s.optimizer_gb = to_gib(top.optimizer);
  s.activations_gb = to_gib(top.activations);
  s.comm_buffers_gb = to_gib(top.comm_buffers);
  s.host_activations_gb = to_gib(top.host_activations);
  s.peak_memory_gb = top.total_gib();
  s.binding_stage = mem.heaviest_stage;
  if (mem.oom) {
    s.oom = PlanSummary::Oom{to_gib(mem.oom->capacity_bytes), to_gib(mem.oom->required_bytes),
                             to_gib(mem.oom->excess_bytes())};
  }
  check_fault_memory(e, s);
  const double host_capacity = e.hardware.node.host_memory_gb;
  if (host_capacity > 0 && s.host_activations_gb > host_capacity)
    s.host_oom = PlanSummary::Oom{host_capacity, s.host_activations_gb, s.host_activations_gb - host_capacity};
  return s;
}

}  // namespace pf::models::memory
