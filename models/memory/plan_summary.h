// What `preflight validate` reports without simulating (io/cli/README.md):
// parameter counts, FLOPs per iteration, memory per pipeline stage and the
// out-of-memory verdict, in the report's units (GiB, FLOPs per iteration).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "models/memory/memory_plan.h"
#include "models/spec/experiment_spec.h"

namespace pf::models::memory {

struct PlanSummary {
  std::int64_t parameters = 0;         // whole model
  std::int64_t active_parameters = 0;  // per token (MoE: top_k experts)
  double model_flops = 0;              // per iteration, whole cluster, no recomputation
  double hardware_flops = 0;           // per iteration, whole cluster, with recomputation
  std::vector<double> pp_stage_memory_gb;
  // The heaviest stage's breakdown (the report's "memory").
  double parameters_gb = 0, gradients_gb = 0, optimizer_gb = 0, activations_gb = 0, comm_buffers_gb = 0;
  double peak_memory_gb = 0;
  double host_activations_gb = 0;  // offloaded to host memory per GPU (activation offloading)
  int binding_stage = 0;
  struct Oom {
    double capacity_gb = 0, required_gb = 0, excess_gb = 0;
  };
  std::optional<Oom> oom;
  // Offloaded activations beyond the host memory per GPU
  // (hardware.node.host_memory_gb, when stated): the plan does not fit either.
  std::optional<Oom> host_oom;
  bool fits() const { return !oom && !host_oom; }
};

// Throws pf::ConfigError when the parallel split does not fit the model.
// GPUs a fault replaces (faults[i].hardware) are held to their own capacity.
PlanSummary summarize_plan(const ExperimentSpec& experiment);

}  // namespace pf::models::memory
