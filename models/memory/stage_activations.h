// Peak activation memory of one pipeline stage under its schedule: each
// forward of a model chunk adds that chunk's activations, its backward frees
// them, so 1F1B holds up to pp micro-batches on stage 0 and the interleaved
// schedule pp + (pp - 1) / v micro-batches' worth (Korthikanti et al. 2022,
// section 4.2.3) - here counted exactly, chunk by chunk, uneven splits included.
#pragma once

#include "models/memory/activation_memory.h"
#include "models/workload/workload_plan.h"

namespace pf::models::memory {

struct StageActivations {
  double peak_bytes = 0;
  int chunks_in_flight = 0;  // most chunk forwards awaiting their backward
  double host_bytes = 0;     // offloaded to host memory (training.cpu_offload_layers)
};

StageActivations stage_activations(const workload::WorkloadPlan& plan, int stage, const ActivationOptions& opt);

}  // namespace pf::models::memory
