// `preflight run --uncertainty N` (io/cli/README.md): the experiment re-run
// under N Latin-hypercube samples of its cost-model priors, and once at each
// end of each prior with the others nominal (models/uncertainty/README.md).
//
// Every run is a sweep variant (`--set` overrides of the sampled keys) run by
// run_sweep, so the runs are dealt over W/K groups of K ranks
// (`--jobs-per-run K`) and the band is the same on any number of ranks.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/communicator.h"
#include "io/sweep/vary_axis.h"
#include "models/spec/experiment_spec.h"
#include "models/uncertainty/band.h"

namespace pf::sweep {

struct UncertaintyOptions {
  int samples = 0;
  std::uint64_t seed = 1;
  int jobs_per_run = 0;      // as sweep's; 0 = all ranks run each sample
  std::string version;
  // On a group's first rank, as runs finish: (finished, total).
  std::function<void(int, int)> on_progress;
};

// The sample and one-at-a-time runs as variants (exposed for tests).
std::vector<Variant> uncertainty_variants(const models::uncertainty::SamplePlan& plan);

// Collective over `world`. `experiment_path` and `sets` exactly as the run's
// own (config::load_experiment_tree), `e` the experiment they give.
models::uncertainty::Band run_uncertainty(const std::string& experiment_path, const std::vector<std::string>& sets,
                                          const models::ExperimentSpec& e, const core::Communicator& world,
                                          const UncertaintyOptions& options);

}  // namespace pf::sweep
