#include "models/training/training_setup.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "models/collective/nccl_cost.h"

namespace pf::models::training {
namespace {

using workload::GroupId;
using workload::GroupKind;

// Every workload group of more than one GPU, registered with the collective
// layer kind by kind and index by index, so that a group's dense index is
// base[kind] + index on every rank (the bases go to `shared`). Refuses a
// layout whose GPU count is not the topology's.
collective::GroupTable registered_groups(const network::ClusterGraph& graph, const workload::RankLayout& layout,
                                         ExecutionShared& shared) {
  if (graph.gpu_count() != layout.world_size())
    throw ConfigError("parallelism: tp*pp*dp*cp = " + std::to_string(layout.world_size()) + " GPUs, topology has " +
                      std::to_string(graph.gpu_count()));
  collective::GroupTable table(graph);
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
  return table;
}

collective::CollectiveConfig collective_config(const ExperimentSpec& e) {
  collective::CollectiveConfig c;
  c.pipeline_bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(1, e.simulation.chunk_bytes));
  c.nccl_costs = e.simulation.collective_model == CollectiveModel::nccl;
  c.nccl = collective::nccl_params(e.hardware.nccl, e.simulation);
  return c;
}

// NCCL's channel count of every registered group's communicator: one thread
// block each while its collectives run (nccl_cost.h nccl_comm).
std::vector<std::uint16_t> nccl_channel_counts(const collective::GroupTable& groups, collective::NcclArch arch) {
  std::vector<std::uint16_t> channels(groups.size(), 0);
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const auto g = static_cast<collective::GroupIndex>(i);
    channels[i] = static_cast<std::uint16_t>(collective::nccl_comm(groups.group(g), groups.links(g), arch).channels);
  }
  return channels;
}

}  // namespace

TrainingSetup::TrainingSetup(const ExperimentSpec& e, TrainingWorkload workload)
    : experiment_(e),
      workload_(std::move(workload)),
      layout_(workload_.parallelism),
      graph_(network::build_cluster(e.hardware.node, e.topology)),
      reach_(network::apply_faults(graph_, e.faults, e.topology)),
      groups_(registered_groups(graph_, layout_, shared_)),
      net_(graph_, network::network_config(e.simulation)),
      collective_config_(collective_config(e)),
      collectives_(net_, groups_, collective_config_),
      conditions_(e),
      server_(groups_, collective_config_) {
  shared_.collectives = &collectives_;
  if (e.simulation.intra_server == IntraServer::analytical) shared_.server = &server_;
  shared_.conditions = &conditions_;
  shared_.overlap_slowdown = e.hardware.gpu.efficiency.overlap_slowdown;
  if (e.hardware.gpu.sm_count > 0 && e.hardware.gpu.efficiency.overlap_sm_cost > 0) {
    shared_.sm_share_per_channel = e.hardware.gpu.efficiency.overlap_sm_cost / e.hardware.gpu.sm_count;
    shared_.group_channels = nccl_channel_counts(groups_, collective_config_.nccl.arch);
  }
  shared_.comm_overhead = core::SimTime::from_us(e.hardware.gpu.efficiency.communication_overhead_us);
  shared_.host_overhead =
      core::SimTime::from_seconds(e.training.host_overhead_us * e.hardware.node.host_overhead_scale * 1e-6);
  // A graph's kernels replay at the graph's per-kernel time, never dearer than an eager issue.
  shared_.graph_overhead = core::SimTime::from_seconds(std::min(kCudaGraphHostOverheadUs, e.training.host_overhead_us) *
                                                       e.hardware.node.host_overhead_scale * 1e-6);
  shared_.host_sync_on_loss = e.training.host_sync_on_loss;
  shared_.host_sync_on_moe_dispatch = e.training.host_sync_on_moe_dispatch;
  if (e.training.moe_token_dispatcher == MoeTokenDispatcher::flex && e.model.moe && e.model.moe->num_experts > 0) {
    shared_.moe_dedup_top_k = e.model.moe->top_k;
    shared_.moe_dedup_experts = e.model.moe->num_experts;
  }
}

TrainingModel TrainingSetup::model(const std::vector<int>& local_gpus, std::vector<bool> record) {
  record.resize(static_cast<std::size_t>(layout_.world_size()), false);
  return TrainingModel(net_, shared_, workload_.program, local_gpus, record, layout_.world_size());
}

}  // namespace pf::models::training
