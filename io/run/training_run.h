// One training iteration, simulated end to end on the ranks of `comm`:
// the model's setup (models/training/training_setup.h), partitioned over the
// ranks, run on the engine, and every rank's figures gathered and merged into
// a RunResult (identical on every rank except its `local` rows).
//
//   RunOptions o;  o.record = timeline selection mask (or empty: no rows)
//   RunResult r = run_training(experiment, core::Communicator::world(), o);
//
// Throws pf::ConfigError for an experiment the simulator cannot run (an
// explicit algorithm a group cannot use, a zero-latency cut link) and
// pf::SimulationError when the programs deadlock (every GPU is named with the
// ops it is stuck on) or a model contract breaks; every rank throws alike.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "core/communicator.h"
#include "core/sim_time.h"
#include "io/run/parallelism_profile.h"
#include "models/spec/experiment_spec.h"
#include "models/training/run_result.h"
#include "models/training/training_workload.h"

namespace pf::run {

struct RunOptions {
  std::vector<bool> record;  // per GPU: keep its ops as timeline rows (empty: none)
  // Engine progress: rank-local simulated time, committed events, and the
  // fraction of the iteration this rank's GPUs have reached (0..1,
  // TrainingModel::progress()).
  std::function<void(core::SimTime, std::uint64_t, double)> progress;
  // Non-null: filled with the run's parallelism profile. On one rank the
  // windows of each of `profile_ranks` ranks are replayed; on more (window
  // synchronisation only) every window is recorded.
  ParallelismProfile* profile = nullptr;
  std::vector<int> profile_ranks;
};

models::training::RunResult run_training(const models::ExperimentSpec& experiment,
                                         const models::training::TrainingWorkload& workload,
                                         const core::Communicator& comm, const RunOptions& options);
// The built-in workload of the experiment.
models::training::RunResult run_training(const models::ExperimentSpec& experiment, const core::Communicator& comm,
                                         const RunOptions& options);

// This process's peak resident set, in bytes (getrusage).
double peak_rss_bytes();

}  // namespace pf::run
