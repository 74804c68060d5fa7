#include "models/training/training_run.h"

#include <algorithm>
#include <string>

#include "core/engine.h"
#include "core/error.h"
#include "models/collective/collective_engine.h"
#include "models/collective/group_table.h"
#include "models/memory/plan_summary.h"
#include "models/network/network.h"
#include "models/network/network_lookahead.h"
#include "models/training/fault_impact.h"
#include "models/training/result_gather.h"
#include "models/training/server_collective.h"
#include "models/training/training_model.h"
#include "models/workload/workload_plan.h"
#include "models/network/faults.h"
#include "models/network/topology.h"
#include "models/network/lp_partition.h"

namespace pf::models::training {
namespace {

using workload::GroupId;
using workload::GroupKind;

// Registers every workload group of more than one GPU with the collective
// layer, kind by kind and index by index, so that a group's dense index is
// base[kind] + index on every rank.
void register_groups(const workload::RankLayout& layout, collective::GroupTable& table, ExecutionShared& shared) {
  shared.group_base.assign(workload::kGroupKindCount, 0);
  shared.group_size.assign(workload::kGroupKindCount, 1);
  for (int k = 1; k < workload::kGroupKindCount; ++k) {
    const auto kind = static_cast<GroupKind>(k);
    const int size = layout.group_size(kind);
    const int count = layout.group_count(kind);
    shared.group_size[static_cast<std::size_t>(k)] = size;
    shared.group_base[static_cast<std::size_t>(k)] = static_cast<std::uint32_t>(table.size());
    if (size <= 1) continue;
    for (int i = 0; i < count; ++i) table.add(layout.members(GroupId(kind, static_cast<std::uint32_t>(i))));
  }
}

std::vector<int> local_gpus(const partition::RankMapping& mapping, int rank, int gpus) {
  std::vector<int> out;
  for (int g = 0; g < gpus; ++g)
    if (mapping.vertex_rank[static_cast<std::size_t>(g)] == rank) out.push_back(g);
  return out;
}

// The end of an iteration is unknown in advance: the engine runs until every
// rank's GPUs are done (null_message) or no event is left (window).
core::EngineConfig engine_config(const network::ClusterGraph& graph, const partition::RankMapping& mapping,
                                 const SimulationSpec& sim, const RunOptions& options) {
  core::EngineConfig config = network::engine_config(graph, mapping, sim.network, sim.sync);
  config.end = core::SimTime::infinity();
  config.progress = options.progress;
  return config;
}

}  // namespace

std::vector<std::uint32_t> first_replica_gpus(const ParallelismSpec& parallelism) {
  const workload::RankLayout layout(parallelism);
  std::vector<std::uint32_t> out;
  for (int g = 0; g < layout.world_size(); ++g)
    if (layout.coords(g).dp == 0) out.push_back(static_cast<std::uint32_t>(g));
  return out;
}

TrainingWorkload built_in_workload(const ExperimentSpec& e) {
  auto plan = std::make_shared<const workload::WorkloadPlan>(e);
  TrainingWorkload w;
  w.parallelism = e.parallelism;
  w.memory = memory::summarize_plan(e);
  w.program = [p = plan.get()](int gpu) { return ProgramSource(workload::GpuProgram(*p, gpu)); };
  w.keep_alive = plan;
  return w;
}

TrainingWorkload simai_workload(std::shared_ptr<const workload::SimaiWorkload> file, int gpus) {
  struct Held {
    std::shared_ptr<const workload::SimaiWorkload> file;
    workload::RankLayout layout;
  };
  TrainingWorkload w;
  w.parallelism = workload::simai_parallelism(*file, gpus);
  auto held = std::make_shared<const Held>(Held{file, workload::RankLayout(w.parallelism)});
  w.program = [h = held.get()](int gpu) { return ProgramSource(workload::SimaiProgram(*h->file, h->layout, gpu)); };
  w.keep_alive = held;
  return w;
}

RunResult run_training(const ExperimentSpec& e, const core::Communicator& comm, const RunOptions& options) {
  return run_training(e, built_in_workload(e), comm, options);
}

RunResult run_training(const ExperimentSpec& e, const TrainingWorkload& work, const core::Communicator& comm,
                       const RunOptions& options) {
  const workload::RankLayout layout(work.parallelism);
  const memory::PlanSummary& memory = work.memory;
  network::ClusterGraph graph = network::build_cluster(e.hardware.node, e.topology);
  const std::vector<network::FaultReach> reach = network::apply_faults(graph, e.faults, e.topology);
  if (graph.gpu_count() != layout.world_size())
    throw ConfigError("parallelism: tp*pp*dp*cp = " + std::to_string(layout.world_size()) + " GPUs, topology has " +
                      std::to_string(graph.gpu_count()));
  const partition::RankMapping mapping = network::partition_cluster(graph, comm.size(), e.simulation.partition);

  ExecutionShared shared;
  collective::GroupTable groups(graph);
  register_groups(layout, groups, shared);
  network::Network net(graph, network::network_config(e.simulation));
  collective::CollectiveConfig coll_config;
  coll_config.pipeline_bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(1, e.simulation.chunk_bytes));
  coll_config.nccl_costs = e.simulation.collective_model == CollectiveModel::nccl;
  coll_config.nccl = collective::nccl_params(e.hardware.nccl, e.simulation);
  collective::CollectiveEngine collectives(net, groups, coll_config);
  const GpuConditions conditions(e);
  ServerCollectives server(groups, coll_config);
  shared.collectives = &collectives;
  if (e.simulation.intra_server == IntraServer::analytical) shared.server = &server;
  shared.conditions = &conditions;
  shared.overlap_slowdown = e.hardware.gpu.efficiency.overlap_slowdown;
  shared.comm_overhead = core::SimTime::from_us(e.hardware.gpu.efficiency.communication_overhead_us);
  shared.host_overhead = core::SimTime::from_seconds(e.training.host_overhead_us * 1e-6);
  shared.host_sync_on_loss = e.training.host_sync_on_loss;

  core::Engine engine(comm, mapping.vertex_rank, engine_config(graph, mapping, e.simulation, options));
  std::vector<bool> record = options.record;
  record.resize(static_cast<std::size_t>(layout.world_size()), false);
  TrainingModel model(net, std::move(shared), work.program, local_gpus(mapping, comm.rank(), layout.world_size()),
                      record, layout.world_size());
  model.seed(engine);
  engine.run(model);

  check_all_finished(comm, model);
  RunResult result = gather_results(comm, e, layout, memory, graph, mapping, engine, model, net);
  if (!e.faults.empty())
    result.faults = fault_impacts(comm, e, layout, reach, mapping, result.binding_gpu, model, net);
  return result;
}

}  // namespace pf::models::training
