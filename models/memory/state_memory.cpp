#include "models/memory/state_memory.h"

#include "models/workload/precision.h"

namespace pf::models::memory {

StateMemory state_memory(const workload::WorkloadPlan& plan, const workload::StageParams& params) {
  using workload::ParamClass;
  int zero = plan.parallelism().zero_stage;
  Dtype dtype = plan.training().dtype;
  double dense = static_cast<double>(params.dense);
  double expert = static_cast<double>(params.expert);
  double nd = plan.grad_group_size(ParamClass::dense);
  double ne = plan.grad_group_size(ParamClass::expert);
  // Elements held per GPU when a state is sharded (or not).
  auto held = [&](bool sharded) { return sharded ? dense / nd + expert / ne : dense + expert; };
  StateMemory m;
  m.parameters = workload::param_bytes(dtype) * held(zero >= 3);
  m.gradients = plan.grad_bytes() * held(zero >= 2);
  m.optimizer = workload::optimizer_bytes(plan.training()) * held(zero >= 1);
  return m;
}

}  // namespace pf::models::memory
