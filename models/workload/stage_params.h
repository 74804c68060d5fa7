// Parameters one GPU holds for a (virtual) pipeline stage, by how they are
// synchronised: what the memory model shards under ZeRO and what the program
// reduces over data parallelism.
#pragma once

#include <cstdint>

#include "models/workload/workload_plan.h"

namespace pf::models::workload {

struct StageParams {
  std::int64_t dense = 0;              // reduced over plan.grad_group(dense)
  std::int64_t expert = 0;             // reduced over the expert-DP group
  std::int64_t sequence_parallel = 0;  // of dense: replicated over tp, gradients partial under SP
                                       // (norms, row-parallel biases, router): all-reduced over tp
  std::int64_t tied_embedding = 0;     // of dense: word embedding shared by first and last stage
  std::int64_t mla_down = 0;           // of dense: MLA down-projections, whole on every tp rank with
                                       // partial gradients whenever tp > 1
  std::int64_t total() const { return dense + expert; }
  // Gradient elements all-reduced over tp after backward (Megatron's
  // sequence-parallel norm gradients, plus MLA's replicated down-projections).
  std::int64_t tp_synced(bool sp, bool tp) const { return (sp ? sequence_parallel : 0) + (tp ? mla_down : 0); }
};

StageParams vstage_params(const WorkloadPlan& plan, int vstage);
// All chunks of pipeline stage `stage`.
StageParams stage_params(const WorkloadPlan& plan, int stage);

}  // namespace pf::models::workload
