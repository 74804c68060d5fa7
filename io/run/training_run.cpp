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
// `model` is set once the model exists (before the engine runs).
core::EngineConfig engine_config(const models::network::ClusterGraph& graph, const partition::RankMapping& mapping,
                                 const models::SimulationSpec& sim, const RunOptions& options,
                                 const models::training::TrainingModel* const& model) {
  core::EngineConfig config = models::network::engine_config(graph, mapping, sim.network, sim.sync);
  config.end = core::SimTime::infinity();
  if (options.progress)
    config.progress = [&model, report = options.progress](core::SimTime now, std::uint64_t committed) {
      report(now, committed, model != nullptr ? model->progress() : 0.0);
    };
  return config;
}

// The windows of a K-rank run of this experiment, to replay on one rank:
// K ranks' partition (same method) and lookaheads, as run_training would
// build them on K ranks.
void add_projections(const models::training::TrainingSetup& setup, const models::SimulationSpec& sim,
                     const std::vector<int>& ranks, core::WindowProjections& out, ParallelismProfile& profile) {
  const int servers = setup.graph().shape().nodes;
  for (int k : ranks) {
    if (k > servers) {
      profile.skipped.push_back({k, "more ranks than servers (" + std::to_string(servers) +
                                        "): a server is never split over ranks"});
      continue;
    }
    try {
      const partition::RankMapping m = models::network::partition_cluster(setup.graph(), k, sim.partition);
      const core::EngineConfig c = models::network::engine_config(setup.graph(), m, sim.network, sim.sync);
      out.add(core::VirtualRanks{k, m.vertex_rank, c.lookahead, c.lp_lookahead});
    } catch (const Error& e) {
      profile.skipped.push_back({k, e.what()});
    }
  }
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
  const models::training::TrainingModel* progress_of = nullptr;
  core::EngineConfig config = engine_config(setup.graph(), mapping, e.simulation, options, progress_of);
  ParallelismProfile* profile = options.profile;
  core::WindowProjections projections;
  if (profile != nullptr) {
    if (comm.size() > 1 && e.simulation.sync != models::SyncMode::window)
      throw ConfigError("--profile-parallelism on more than one rank records windows: expected simulation.sync: "
                        "window, found null_message");
    config.record_windows = comm.size() > 1;
    profile->ranks = comm.size();
    profile->partition = partition::to_string(e.simulation.partition);
    profile->network = e.simulation.network == models::NetworkMode::packet ? "packet" : "analytical";
    if (comm.size() == 1) add_projections(setup, e.simulation, options.profile_ranks, projections, *profile);
  }
  core::Engine engine(comm, mapping.vertex_rank, std::move(config));
  if (!projections.empty()) engine.observe(&projections);
  const int gpus = setup.layout().world_size();
  models::training::TrainingModel model = setup.model(local_gpus(mapping, comm.rank(), gpus), options.record);
  progress_of = &model;
  model.seed(engine);
  engine.run(model);
  if (profile != nullptr) {
    const core::EngineStats global = engine.global_stats();
    profile->events = global.committed_events;
    profile->engine_wall_s = global.wall_s;
    profile->observer_s = projections.overhead_s();
    profile->projected = projections.finish();
    if (comm.size() > 1) profile->windows = engine.global_windows();
  }

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
