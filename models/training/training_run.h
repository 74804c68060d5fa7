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
#include <vector>

#include "core/communicator.h"
#include "core/sim_time.h"
#include "models/spec/experiment_spec.h"
#include "models/training/run_result.h"

namespace pf::models::training {

struct RunOptions {
  std::vector<bool> record;  // per GPU: keep its ops as timeline rows (empty: none)
  // Engine progress (rank-local simulated time and committed events).
  std::function<void(core::SimTime, std::uint64_t)> progress;
};

RunResult run_training(const ExperimentSpec& experiment, const core::Communicator& comm, const RunOptions& options);

// The TP x PP x CP GPUs of data-parallel replica 0, ascending (the timeline's
// `first_replica` selection).
std::vector<std::uint32_t> first_replica_gpus(const ExperimentSpec& experiment);

}  // namespace pf::models::training
