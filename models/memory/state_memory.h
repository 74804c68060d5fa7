// Model state per GPU: parameters, gradients and optimizer state, sharded over
// the data-parallel group by ZeRO stage (Rajbhandari et al. 2020, Figure 1):
//   stage 0: (2 + 2 + K) Psi      stage 1: 2 Psi + 2 Psi + K Psi / Nd
//   stage 2: 2 Psi + (2 + K) Psi / Nd      stage 3: (2 + 2 + K) Psi / Nd
// with Psi the GPU's parameters, K = 12 (fp32 master weights and two Adam
// moments; workload/precision.h) and Nd the group the shards are spread over
// (dense: dp x cp; experts: the expert-DP group).
#pragma once

#include "models/workload/stage_params.h"

namespace pf::models::memory {

struct StateMemory {
  double parameters = 0;  // bytes
  double gradients = 0;
  double optimizer = 0;
};

StateMemory state_memory(const workload::WorkloadPlan& plan, const workload::StageParams& params);

}  // namespace pf::models::memory
