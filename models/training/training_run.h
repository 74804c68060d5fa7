// One training iteration, simulated end to end on the ranks of `comm`:
// workload programs on GPU LPs, collectives on the packet or analytical
// network, partitioned over the ranks, and the results gathered into a
// RunResult (identical on every rank except its `local` rows).
//
//   RunOptions o;  o.record = timeline selection mask (or empty: no rows)
//   RunResult r = run_training(experiment, core::Communicator::world(), o);
//
// Throws pf::ConfigError for an experiment the simulator cannot run (an
// explicit algorithm a group cannot use, a zero-latency cut link) and
// pf::SimulationError when the programs deadlock (every GPU is named with the
// ops it is stuck on) or a model contract breaks; every rank throws alike.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "core/communicator.h"
#include "core/sim_time.h"
#include "models/memory/plan_summary.h"
#include "models/spec/experiment_spec.h"
#include "models/training/program_source.h"
#include "models/training/run_result.h"
#include "models/workload/simai_workload.h"

namespace pf::models::training {

struct RunOptions {
  std::vector<bool> record;  // per GPU: keep its ops as timeline rows (empty: none)
  // Engine progress (rank-local simulated time and committed events).
  std::function<void(core::SimTime, std::uint64_t)> progress;
};

// What the GPUs run: the rank layout, each GPU's program, and what is known
// about memory and FLOPs (nothing for imported workloads).
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

RunResult run_training(const ExperimentSpec& experiment, const TrainingWorkload& workload,
                       const core::Communicator& comm, const RunOptions& options);
// The built-in workload of the experiment.
RunResult run_training(const ExperimentSpec& experiment, const core::Communicator& comm, const RunOptions& options);

// The TP x PP x CP GPUs of data-parallel replica 0, ascending (the timeline's
// `first_replica` selection).
std::vector<std::uint32_t> first_replica_gpus(const ParallelismSpec& parallelism);

}  // namespace pf::models::training
