// Peak memory per pipeline stage and the out-of-memory verdict (io/report/README.md:
// GiB = 2^30 bytes, like a GPU's "80 GB").
#pragma once

#include <optional>
#include <vector>

#include "models/memory/activation_memory.h"
#include "models/spec/experiment_spec.h"
#include "models/workload/workload_plan.h"

namespace pf::models::memory {

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline double to_gib(double bytes) { return bytes / kGiB; }

struct StageMemory {
  int stage = 0;
  // bytes per GPU of this stage
  double parameters = 0, gradients = 0, optimizer = 0, activations = 0, comm_buffers = 0;
  // Most micro-batch chunks whose activations are held at once under the schedule.
  int chunks_in_flight = 0;
  // Activations held in host memory instead (training.cpu_offload_layers:
  // the offloaded layers' saved tensors at the end of a forward;
  // training.offload_modules: the modules' inputs of the micro-batches in
  // flight at the schedule's peak); not in total().
  double host_activations = 0;

  double total() const { return parameters + gradients + optimizer + activations + comm_buffers; }
  double total_gib() const { return to_gib(total()); }
};

struct OomVerdict {
  double capacity_bytes = 0, required_bytes = 0;
  double excess_bytes() const { return required_bytes - capacity_bytes; }
};

struct MemoryPlan {
  std::vector<StageMemory> stages;  // one per pipeline stage
  int heaviest_stage = 0;
  double capacity_bytes = 0;
  std::optional<OomVerdict> oom;    // set when the heaviest stage exceeds the capacity

  const StageMemory& heaviest() const { return stages[static_cast<std::size_t>(heaviest_stage)]; }
};

// What the plan's training settings make of the activation options: the
// attention kernel, the recomputed modules, fp8's one-byte linear inputs and
// the modules whose inputs are offloaded.
ActivationOptions activation_options(const workload::WorkloadPlan& plan, const ActivationOptions& base = {});
// Bytes one offloaded layer's saved tensors take (training.cpu_offload_layers:
// what each copy to the host and back moves), for a dense or a MoE layer.
double offloaded_layer_bytes(const workload::WorkloadPlan& plan, bool moe);

// capacity_gib: the GPU's memory (hardware.gpu.memory_gb, in GiB).
MemoryPlan plan_memory(const workload::WorkloadPlan& plan, double capacity_gib, const ActivationOptions& opt = {});
MemoryPlan plan_memory(const ExperimentSpec& experiment);

}  // namespace pf::models::memory
