#include "io/run/training_run.h"

#include <sys/resource.h>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

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

// The servers' placement on `ranks` MPI ranks by the experiment's strategy.
// Replica folding leaves only the representatives' servers to simulate, so
// `replicas` (whose runs would hold them all on the first rank) gives way to
// METIS there.
partition::RankMapping place_servers(const models::training::TrainingSetup& setup, int ranks,
                                     partition::Strategy strategy) {
  const bool folded = setup.folding().active;
  const std::vector<double> weights = folded ? setup.partition_weights() : std::vector<double>{};
  if (strategy == partition::Strategy::replicas && folded) strategy = partition::Strategy::metis;
  const std::vector<std::int32_t> order =
      strategy == partition::Strategy::replicas ? setup.replica_order() : std::vector<std::int32_t>{};
  return models::network::partition_cluster(setup.graph(), ranks, strategy, {}, weights, order);
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
      const partition::RankMapping m = place_servers(setup, k, sim.partition);
      const core::EngineConfig c = models::network::engine_config(setup.graph(), m, sim.network, sim.sync);
      out.add(core::VirtualRanks{k, m.vertex_rank, c.lookahead, c.lp_lookahead});
    } catch (const Error& e) {
      profile.skipped.push_back({k, e.what()});
    }
  }
}

template <typename Row>
std::string as_bytes(const std::vector<Row>& rows) {
  static_assert(std::is_trivially_copyable_v<Row>);
  std::string out(rows.size() * sizeof(Row), '\0');
  if (!rows.empty()) std::memcpy(out.data(), rows.data(), out.size());
  return out;
}

template <typename Row>
void append_rows(const std::string& bytes, std::vector<Row>& out) {
  if (bytes.size() % sizeof(Row) != 0) throw SimulationError("run: a rank's folded rows are truncated");
  const std::size_t n = bytes.size() / sizeof(Row), at = out.size();
  out.resize(at + n);
  if (n > 0) std::memcpy(out.data() + at, bytes.data(), bytes.size());
}

// Replica folding: the rows of this rank's folded GPUs, from their
// representatives' (simulated anywhere): every representative's totals, and
// the ops of those that record for a folded GPU, are all-gathered. Ops a
// representative kept only for others are dropped.
void add_folded_rows(const models::training::TrainingSetup& setup, const partition::RankMapping& mapping,
                     const core::Communicator& comm, const std::vector<bool>& record,
                     RunResult::Local& local) {
  const models::training::ReplicaFolding& fold = setup.folding();
  const auto gpus = fold.source.size();
  const auto recorded = [&](std::size_t g) { return g < record.size() && record[g]; };
  std::vector<bool> needed(gpus, false);  // a source whose ops a folded, recorded GPU copies
  for (std::size_t g = 0; g < gpus; ++g)
    if (!fold.simulated(static_cast<int>(g)) && recorded(g)) needed[static_cast<std::size_t>(fold.source[g])] = true;
  std::vector<models::training::ExecutedOp> shared_ops;
  for (const auto& op : local.ops)
    if (needed[op.gpu]) shared_ops.push_back(op);
  std::vector<models::training::GpuTotals> totals;
  for (const std::string& bytes : comm.all_gather(as_bytes(local.gpus))) append_rows(bytes, totals);
  std::vector<models::training::ExecutedOp> ops;
  for (const std::string& bytes : comm.all_gather(as_bytes(shared_ops))) append_rows(bytes, ops);

  std::vector<std::int64_t> totals_of(gpus, -1);
  for (std::size_t i = 0; i < totals.size(); ++i) totals_of[totals[i].gpu] = static_cast<std::int64_t>(i);
  std::vector<std::vector<int>> copies(gpus);  // per source: this rank's folded, recorded GPUs taking its ops
  for (std::size_t g = 0; g < gpus; ++g) {
    const auto gpu = static_cast<int>(g);
    if (fold.simulated(gpu) || mapping.vertex_rank[g] != comm.rank()) continue;
    const std::int64_t t = totals_of[static_cast<std::size_t>(fold.source[g])];
    if (t < 0) throw SimulationError("run: GPU " + std::to_string(g) + "'s representative has no figures");
    local.gpus.push_back(models::training::folded_totals(totals[static_cast<std::size_t>(t)], gpu));
    if (recorded(g)) copies[static_cast<std::size_t>(fold.source[g])].push_back(gpu);
  }
  std::erase_if(local.ops, [&](const models::training::ExecutedOp& op) { return !recorded(op.gpu); });
  for (const auto& op : ops)
    for (int gpu : copies[op.gpu]) local.ops.push_back(models::training::folded_op(setup.layout(), op, gpu));
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
  const partition::RankMapping mapping = place_servers(setup, comm.size(), e.simulation.partition);
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
  if (setup.folding().active) add_folded_rows(setup, mapping, comm, options.record, result.local);
  return result;
}

}  // namespace pf::run
