#include "io/run/training_run.h"

#include <sys/resource.h>

#include "core/engine.h"
#include "models/network/lp_partition.h"
#include "models/network/network_lookahead.h"
#include "models/training/rank_figures.h"
#include "models/training/result_merge.h"
#include "models/training/training_setup.h"

namespace pf::run {
namespace {

using models::training::RankFigures;
using models::training::RunResult;

std::vector<int> local_gpus(const partition::RankMapping& mapping, int rank, int gpus) {
  std::vector<int> out;
  for (int g = 0; g < gpus; ++g)
    if (mapping.vertex_rank[static_cast<std::size_t>(g)] == rank) out.push_back(g);
  return out;
}

// The end of an iteration is unknown in advance: the engine runs until every
// rank's GPUs are done (null_message) or no event is left (window).
core::EngineConfig engine_config(const models::network::ClusterGraph& graph, const partition::RankMapping& mapping,
                                 const models::SimulationSpec& sim, const RunOptions& options) {
  core::EngineConfig config = models::network::engine_config(graph, mapping, sim.network, sim.sync);
  config.end = core::SimTime::infinity();
  config.progress = options.progress;
  return config;
}

}  // namespace

double peak_rss_bytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) * 1024.0;  // Linux reports KiB
}

RunResult run_training(const models::ExperimentSpec& e, const core::Communicator& comm, const RunOptions& options) {
  return run_training(e, models::training::built_in_workload(e), comm, options);
}

RunResult run_training(const models::ExperimentSpec& e, const models::training::TrainingWorkload& work,
                       const core::Communicator& comm, const RunOptions& options) {
  models::training::TrainingSetup setup(e, work);
  const partition::RankMapping mapping =
      models::network::partition_cluster(setup.graph(), comm.size(), e.simulation.partition);
  core::Engine engine(comm, mapping.vertex_rank, engine_config(setup.graph(), mapping, e.simulation, options));
  const int gpus = setup.layout().world_size();
  models::training::TrainingModel model = setup.model(local_gpus(mapping, comm.rank(), gpus), options.record);
  model.seed(engine);
  engine.run(model);

  const RankFigures mine =
      models::training::rank_figures(setup, mapping, comm.rank(), model, engine.local_stats(), peak_rss_bytes());
  std::vector<RankFigures> all;
  for (const std::string& bytes : comm.all_gather(models::training::encode(mine)))
    all.push_back(models::training::decode(bytes));
  RunResult result = models::training::merge_results(setup, mapping, engine.config().lookahead, all);
  result.local = models::training::local_rows(setup, mapping, comm.rank(), model);
  return result;
}

}  // namespace pf::run
