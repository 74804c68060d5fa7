#include "models/memory/memory_plan.h"

#include <algorithm>

#include "models/memory/stage_activations.h"
#include "models/memory/state_memory.h"

namespace pf::models::memory {
namespace {

using workload::UnitId;

// Buffers communication needs beyond the model state and activations (estimates):
//  - ZeRO 2/3: the full-size gradient bucket being reduced and the one filling;
//  - ZeRO 3: the gathered parameters of the current layer (and the prefetched next);
//  - pipeline: one activation received and one sent;
//  - experts: the all-to-all send and receive buffers.
double comm_buffer_bytes(const workload::WorkloadPlan& plan, const workload::StageParams& params) {
  int zero = plan.parallelism().zero_stage;
  double bytes = 0;
  if (zero >= 2) {
    double grads = static_cast<double>(params.total()) * plan.grad_bytes();
    bytes += std::min(grads, 2.0 * static_cast<double>(plan.bucket_bytes()));
  }
  if (zero == 3) {
    double largest = 0;
    for (UnitId id : {UnitId::dense_fwd, UnitId::moe_fwd, UnitId::embedding_fwd, UnitId::head_fwd, UnitId::mtp_fwd}) {
      const auto& p = plan.unit(id).param_elems;
      largest = std::max(largest, static_cast<double>(p[0] + p[1]));
    }
    bytes += (plan.training().overlap_param_gather ? 2.0 : 1.0) * largest * plan.param_bytes();
  }
  if (plan.parallelism().pp > 1) bytes += 2.0 * static_cast<double>(plan.p2p_bytes());
  if (plan.parallelism().ep > 1) {
    // The dispatch's send and receive buffers, 16-bit: what this GPU sends, what the busiest rank receives.
    const auto& d = plan.dims();
    bytes += 2.0 * static_cast<double>((d.routed_tokens + d.received_tokens) * d.hidden);
  }
  return bytes;
}

}  // namespace

ActivationOptions activation_options(const workload::WorkloadPlan& plan, const ActivationOptions& base) {
  ActivationOptions o = base;
  o.flash_attention = base.flash_attention && plan.training().attention != AttentionKernel::unfused;
  o.modules = plan.training().recompute_modules;
  o.fp8_linear_inputs = plan.training().dtype == Dtype::fp8;
  o.offload = plan.training().offload_modules;
  return o;
}

double offloaded_layer_bytes(const workload::WorkloadPlan& plan, bool moe) {
  return layer_activation_bytes(plan.model(), plan.dims(), moe, plan.training().recompute, activation_options(plan));
}

MemoryPlan plan_memory(const workload::WorkloadPlan& plan, double capacity_gib, const ActivationOptions& opt) {
  MemoryPlan out;
  out.capacity_bytes = capacity_gib * kGiB;
  for (int s = 0; s < plan.parallelism().pp; ++s) {
    workload::StageParams params = workload::stage_params(plan, s);
    StateMemory state = state_memory(plan, params);
    StageActivations act = stage_activations(plan, s, activation_options(plan, opt));
    StageMemory m;
    m.stage = s;
    m.parameters = state.parameters;
    m.gradients = state.gradients;
    m.optimizer = state.optimizer;
    m.activations = act.peak_bytes;
    m.chunks_in_flight = act.chunks_in_flight;
    m.host_activations = act.host_bytes;
    m.comm_buffers = comm_buffer_bytes(plan, params);
    out.stages.push_back(m);
    if (m.total() > out.heaviest().total()) out.heaviest_stage = s;
  }
  double required = out.heaviest().total();
  if (required > out.capacity_bytes) out.oom = OomVerdict{out.capacity_bytes, required};
  return out;
}

MemoryPlan plan_memory(const ExperimentSpec& experiment) {
  workload::WorkloadPlan plan(experiment);
  return plan_memory(plan, experiment.hardware.gpu.memory_gb);
}

}  // namespace pf::models::memory
