// What the GPUs of a training run execute: the rank layout, each GPU's
// program and what is known about memory and FLOPs. Either the built-in
// workload generator on the experiment's model or an imported SimAI/AICB file.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "models/memory/plan_summary.h"
#include "models/spec/experiment_spec.h"
#include "models/training/program_source.h"
#include "models/workload/simai_workload.h"

namespace pf::models::training {

struct TrainingWorkload {
  ParallelismSpec parallelism;
  std::function<ProgramSource(int gpu)> program;
  memory::PlanSummary memory;  // zeros when unknown
  std::shared_ptr<const void> keep_alive;  // what `program` refers to
};

// The built-in generator on the experiment's model (throws pf::ConfigError
// for a split the model cannot take).
TrainingWorkload built_in_workload(const ExperimentSpec& experiment);
// An imported SimAI/AICB workload on the experiment's cluster (its parallel
// layout from the file's header; throws pf::ConfigError when it does not fit).
TrainingWorkload simai_workload(std::shared_ptr<const workload::SimaiWorkload> file, int gpus);

// The TP x PP x CP GPUs of data-parallel replica 0, ascending (the timeline's
// `first_replica` selection).
std::vector<std::uint32_t> first_replica_gpus(const ParallelismSpec& parallelism);

}  // namespace pf::models::training
