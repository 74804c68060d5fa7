#include "models/training/training_setup.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>

#include "core/error.h"
#include "models/collective/nccl_cost.h"
#include "models/network/lp_partition.h"

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

// Dense groups spanning servers that CrossServerCollectives times: with the
// analytical network, inter_server: analytical and NCCL's costs, except the
// flex dispatcher's EP groups (their all-to-alls cross to a server once per
// token, which the message-level collective prices).
std::vector<std::uint8_t> cross_server_groups(const ExperimentSpec& e, const collective::GroupTable& groups,
                                              const ExecutionShared& shared) {
  std::vector<std::uint8_t> out(groups.size(), 0);
  if (e.simulation.network != NetworkMode::analytical || e.simulation.inter_server != InterServer::analytical ||
      e.simulation.collective_model != CollectiveModel::nccl)
    return out;
  const auto ep = static_cast<std::size_t>(GroupKind::ep);
  const std::uint32_t ep_begin = shared.group_base[ep];
  const std::uint32_t ep_end = ep + 1 < shared.group_base.size() ? shared.group_base[ep + 1] : ep_begin;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const bool flex_ep = shared.moe_dedup_top_k > 0 && i >= ep_begin && i < ep_end;
    out[i] = groups.group(static_cast<collective::GroupIndex>(i)).nodes() >= 2 && !flex_ep ? 1 : 0;
  }
  return out;
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
  if (e.training.moe_token_dispatcher == MoeTokenDispatcher::flex && e.model.moe && e.model.moe->num_experts > 0) {
    shared_.moe_dedup_top_k = e.model.moe->top_k;
    shared_.moe_dedup_experts = e.model.moe->num_experts;
  }
  std::vector<std::uint8_t> cross = cross_server_groups(e, groups_, shared_);
  FoldInputs fold{&e, &workload_.parallelism, &layout_, &groups_, shared_.group_base, cross};
  for (std::size_t i = 0; i < groups_.size(); ++i)
    if (shared_.server != nullptr && server_.handles(static_cast<std::uint32_t>(i))) fold.closed_form[i] = 1;
  folding_ = fold_replicas(fold);
  const std::vector<std::uint8_t> simulated = folding_.simulated_flags();
  server_.set_simulated(simulated);
  if (std::any_of(cross.begin(), cross.end(), [](std::uint8_t c) { return c != 0; })) {
    cross_ = std::make_unique<CrossServerCollectives>(groups_, collective_config_, std::move(cross), simulated);
    shared_.cross = cross_.get();
  }
  shared_.gpu_weight = &folding_.weight;
  shared_.conditions = &conditions_;
  shared_.overlap_slowdown = e.hardware.gpu.efficiency.overlap_slowdown;
  if (e.hardware.gpu.sm_count > 0 && e.hardware.gpu.efficiency.overlap_sm_cost > 0) {
    shared_.sm_share_per_channel = e.hardware.gpu.efficiency.overlap_sm_cost / e.hardware.gpu.sm_count;
    shared_.group_channels = nccl_channel_counts(groups_, collective_config_.nccl.arch);
  }
  shared_.comm_overhead = core::SimTime::from_us(e.hardware.gpu.efficiency.communication_overhead_us);
  shared_.host_link_bytes_per_s = e.hardware.node.host_link() * 1e9;
  // Per-kernel host times on this server's host CPU; a graph's replay and a
  // launch inside a call are never dearer than an eager issue.
  const auto on_host = [&](double us) {
    return core::SimTime::from_seconds(std::min(us, e.training.host_overhead_us) * e.hardware.node.host_overhead_scale *
                                       1e-6);
  };
  shared_.host_overhead = on_host(e.training.host_overhead_us);
  shared_.graph_overhead = on_host(kCudaGraphHostOverheadUs);
  shared_.inner_launch_overhead = on_host(e.training.host_inner_launch_us);
  shared_.host_sync_on_loss = e.training.host_sync_on_loss;
  shared_.promises = e.simulation.lookahead == Lookahead::dynamic;
  shared_.host_sync_on_moe_dispatch = e.training.host_sync_on_moe_dispatch;
  shared_.host_sync_on_quick_geglu =
      e.training.host_sync_on_quick_geglu && e.model.activation == Activation::quick_geglu;
}

std::vector<std::int32_t> TrainingSetup::replica_order() const {
  const int servers = graph_.shape().nodes;
  const int per_node = graph_.shape().gpus_per_node;
  // rank = stage_index + stage_size * pp (rank_layout.h): servers doing the
  // same work at the same moments share stage_index ranges across stages.
  const int stage_size = layout_.world_size() / workload_.parallelism.pp;
  std::vector<std::int32_t> order(static_cast<std::size_t>(servers));
  std::iota(order.begin(), order.end(), 0);
  const auto key = [&](std::int32_t n) {
    const int first = n * per_node;
    return std::pair{first % stage_size, first / stage_size};
  };
  std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) { return key(a) < key(b); });
  return order;
}

TrainingModel TrainingSetup::model(const std::vector<int>& local_gpus, std::vector<bool> record) {
  const auto gpus = static_cast<std::size_t>(layout_.world_size());
  record.resize(gpus, false);
  std::vector<bool> kept(gpus, false);
  for (std::size_t g = 0; g < gpus; ++g)
    if (record[g]) kept[static_cast<std::size_t>(folding_.source[g])] = true;
  std::vector<int> simulated;
  for (int g : local_gpus)
    if (folding_.simulated(g)) simulated.push_back(g);
  return TrainingModel(net_, shared_, workload_.program, simulated, kept, layout_.world_size());
}

std::vector<double> TrainingSetup::partition_weights() const {
  std::vector<double> w = network::default_vertex_events(graph_);
  // A folded GPU never runs: a small weight, so that the partitioner still
  // sees every server, and the simulated ones carry the run's work.
  for (int g = 0; g < graph_.gpu_count(); ++g)
    if (!folding_.simulated(g)) w[static_cast<std::size_t>(g)] *= 1e-3;
  return w;
}

}  // namespace pf::models::training
