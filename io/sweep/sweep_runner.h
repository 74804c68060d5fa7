// Running a sweep's variants inside one MPI job (io/cli/README.md, `preflight
// sweep ... --jobs-per-run K`).
//
// The W ranks of the job form W/K groups of K consecutive ranks (an
// MPI_Comm_split of the world); the valid variants are dealt to the groups
// round-robin in grid order, and each group simulates its variants one after
// another with run_training on its own communicator, so a variant's figures
// are those of `preflight run` on K ranks (and, the simulator being
// rank-count independent, on any number of ranks). The rows are then gathered
// so that every rank holds all of them.
//
//   auto prepared = prepare_variants(path, sets, expand_grid(axes));  // every rank
//   auto rows = run_sweep(prepared, core::Communicator::world(), options);
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/communicator.h"
#include "io/sweep/sweep_row.h"
#include "io/sweep/vary_axis.h"
#include "models/spec/experiment_spec.h"

namespace pf::sweep {

struct PreparedVariant {
  Variant variant;
  std::optional<models::ExperimentSpec> experiment;  // set when the configuration is valid
  std::string config_sha256;                         // of the merged configuration, as `run` hashes it
  std::string error;                                 // the one-line reason otherwise
};

// Loads each variant's configuration exactly as `preflight run FILE --set ...`
// would, with the --set overrides first and the variant's assignments after
// them. A variant that does not hold together is kept, with its reason (the
// override it came from named "--vary KEY=VALUE"). Throws pf::ConfigError for
// what no value can fix: an unknown key, or a key path through a scalar.
std::vector<PreparedVariant> prepare_variants(const std::string& experiment_path, const std::vector<std::string>& sets,
                                              const std::vector<Variant>& grid);

// The number of groups for `world_size` ranks at `jobs_per_run` ranks per
// variant (0 = all ranks); pf::ConfigError unless it divides the world.
int group_count(int world_size, int jobs_per_run);

// Round-robin dealing: the positions (0-based, among `count` jobs) that go to
// `group` of `groups`.
std::vector<std::size_t> dealt_to(std::size_t count, int group, int groups);

struct SweepRunOptions {
  int jobs_per_run = 0;      // MPI ranks per variant; 0 = all ranks, one group
  std::string version;       // for the report the rows are read from
  // Called on each group's first rank as soon as one of its variants finishes.
  std::function<void(const SweepRow&)> on_finished;
};

struct SweepRunResult {
  std::vector<SweepRow> rows;  // every variant, grid order, identical on every rank
  bool simulation_failed = false;  // some variant raised pf::SimulationError (its row says why)
};

// Collective over `world`: every rank must call it with the same variants.
SweepRunResult run_sweep(const std::vector<PreparedVariant>& variants, const core::Communicator& world,
                         const SweepRunOptions& options);

}  // namespace pf::sweep
