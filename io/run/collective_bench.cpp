#include "io/run/collective_bench.h"

#include <numeric>
#include <string>

#include "core/engine.h"
#include "core/error.h"
#include "models/collective/algorithm_choice.h"
#include "models/collective/bench_model.h"
#include "models/collective/collective_engine.h"
#include "models/collective/group_table.h"
#include "models/network/network.h"
#include "models/network/network_lookahead.h"
#include "models/network/faults.h"

namespace pf::run {

namespace network = models::network;
using models::CollectiveModel;
using models::FaultSpec;
using models::NodeSpec;
using models::SimulationSpec;
using models::TopologySpec;
using models::collective::all_reduce_estimate;
using models::collective::BenchModel;
using models::collective::channel_count;
using models::collective::choose_algo;
using models::collective::CollectiveConfig;
using models::collective::CollectiveEngine;
using models::collective::Group;
using models::collective::GroupIndex;
using models::collective::GroupTable;
using models::collective::idle_time_s;
using models::collective::nccl_params;
using models::collective::NcclParams;
using models::collective::Request;
using models::collective::step_cost;

namespace {

std::vector<int> first_gpus(int n) {
  std::vector<int> members(static_cast<std::size_t>(n));
  std::iota(members.begin(), members.end(), 0);
  return members;
}

CollectiveConfig collective_config(const SimulationSpec& sim, const BenchOptions& o) {
  CollectiveConfig c;
  c.channels = o.channels;
  c.pipeline_bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(1, sim.chunk_bytes));
  c.nccl_costs = sim.collective_model == CollectiveModel::nccl;
  c.nccl = nccl_params(o.nccl, sim);
  return c;
}

network::ClusterGraph faulted_cluster(const NodeSpec& node, const TopologySpec& topology,
                                        const std::vector<FaultSpec>& faults) {
  network::ClusterGraph g = network::build_cluster(node, topology);
  if (!faults.empty()) network::apply_faults(g, faults, topology);
  return g;
}

}  // namespace

CollectiveBench::CollectiveBench(const NodeSpec& node, const TopologySpec& topology, const SimulationSpec& simulation,
                                 core::Communicator comm, BenchOptions options)
    : graph_(faulted_cluster(node, topology, options.faults)),
      simulation_(simulation),
      comm_(std::move(comm)),
      options_(options),
      mapping_(network::partition_cluster(graph_, comm_.size(), simulation.partition)) {}

Algo CollectiveBench::resolve(const BenchCase& c) const {
  if (c.gpus < 2 || c.gpus > graph_.gpu_count())
    throw ConfigError("--gpus: expected an integer in 2.." + std::to_string(graph_.gpu_count()) +
                      " (the topology's GPUs), found " + std::to_string(c.gpus));
  if (c.root < 0 || c.root >= c.gpus)
    throw ConfigError("broadcast root: expected a member index in 0.." + std::to_string(c.gpus - 1) + ", found " +
                      std::to_string(c.root));
  GroupTable groups(graph_);
  groups.add(first_gpus(c.gpus));
  Request r;
  r.op = c.op;
  r.algo = c.algo;
  r.bytes = c.bytes;
  return choose_algo(r, groups.group(0), groups.links(0), collective_config(simulation_, options_));
}

namespace {

// A generous first guess at when the collective is over (see the header).
core::SimTime first_end(const GroupTable& groups, GroupIndex gi, const CollectiveConfig& config, std::uint64_t bytes) {
  const Group& g = groups.group(gi);
  double estimate = all_reduce_estimate(Algo::ring, g, groups.links(gi), bytes,
                                        channel_count(config, g, groups.links(gi)), config.pipeline_bytes);
  if (config.nccl_costs) {
    // The slowest protocol's wire overhead and latencies bound any choice.
    Request r;
    r.bytes = bytes;
    NcclParams ll = config.nccl;
    ll.proto = Proto::ll;
    estimate = estimate * 4 + idle_time_s(r, Algo::ring, g, groups.links(gi), ll, config.pipeline_bytes);
  }
  return core::SimTime::from_seconds(2 * estimate + 50e-6);
}

}  // namespace

BenchResult CollectiveBench::run(const BenchCase& c) const {
  const Algo algo = resolve(c);
  GroupTable groups(graph_);
  const GroupIndex gi = groups.add(first_gpus(c.gpus));
  const core::SimTime limit = core::SimTime::from_seconds(3600.0);
  for (core::SimTime end = first_end(groups, gi, collective_config(simulation_, options_), c.bytes);; end.ps *= 4) {
    const Attempt a = attempt(c, algo, end);
    if (a.completed == static_cast<std::uint64_t>(c.gpus)) return a.result;
    if (end > limit)
      throw SimulationError(std::string("collective ") + to_string(c.op) + "/" + to_string(algo) + " of " +
                            std::to_string(c.bytes) + " bytes finished on " + std::to_string(a.completed) + " of " +
                            std::to_string(c.gpus) + " GPUs within an hour of simulated time");
  }
}

CollectiveBench::Attempt CollectiveBench::attempt(const BenchCase& c, Algo algo, core::SimTime end) const {
  Attempt a;
  a.result.algo = algo;
  GroupTable groups(graph_);
  const GroupIndex gi = groups.add(first_gpus(c.gpus));
  network::NetworkConfig net_config = network::network_config(simulation_, options_.nvlink);
  net_config.active_gpus = c.gpus;  // the first c.gpus GPUs run; the others leave their NIC share alone
  network::Network net(graph_, net_config);
  CollectiveEngine collectives(net, groups, collective_config(simulation_, options_));
  // Hierarchical rings and direct exchanges run one channel per phase or peer.
  a.result.channels = algo == Algo::hierarchical || algo == Algo::direct ? 1 : collectives.channels(gi);

  Request request;
  request.op = c.op;
  request.algo = algo;
  request.group = gi;
  request.bytes = c.bytes;
  request.root = c.root;
  const CollectiveConfig cc = collective_config(simulation_, options_);
  if (cc.nccl_costs) a.result.proto = step_cost(request, algo, groups.group(gi), groups.links(gi), cc.nccl, cc.pipeline_bytes).proto;

  core::EngineConfig config = network::engine_config(graph_, mapping_, simulation_.network, simulation_.sync);
  config.end = end;
  config.progress = options_.progress;
  core::Engine engine(comm_, mapping_.vertex_rank, std::move(config));
  BenchModel model(net, collectives, request, groups.group(gi));
  model.seed(engine);
  engine.run(model);

  a.result.time = core::SimTime::from_ps(comm_.max(model.last_completion().ps));
  a.completed = comm_.sum(model.completions());
  a.result.stats = engine.global_stats();
  a.result.digest = engine.global_digest();
  return a;
}

}  // namespace pf::run
