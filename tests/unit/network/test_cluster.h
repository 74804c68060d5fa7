// Small clusters and a transfer rig shared by the network and collective tests.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/communicator.h"
#include "core/engine.h"
#include "models/network/network.h"
#include "models/network/network_lookahead.h"
#include "models/spec/hardware_spec.h"
#include "models/spec/simulation_spec.h"
#include "models/spec/topology_spec.h"
#include "partition/cluster_graph.h"
#include "partition/partition.h"

namespace pf::test {

// An A100-like server (the line rates of configs/hardware/a100-sxm-80gb.yaml).
inline models::NodeSpec server(int gpus, int nics, double nic_gbps = 200) {
  models::NodeSpec n;
  n.gpus_per_node = gpus;
  n.nvlink_bandwidth_gbps = 300;
  n.nvlink_latency_us = 0.7;
  n.nics_per_node = nics;
  n.nic_bandwidth_gbps = nic_gbps;
  n.nic_latency_us = 2.0;
  n.pcie_bandwidth_gbps = 32;
  return n;
}

inline models::TopologySpec fabric(models::TopologyKind kind, int nodes, int nodes_per_leaf = 16,
                                   double leaf_oversubscription = 1.0) {
  models::TopologySpec t;
  t.kind = kind;
  t.nodes = nodes;
  t.nodes_per_leaf = nodes_per_leaf;
  t.leaf_oversubscription = leaf_oversubscription;
  t.link_latency_us = 0.1;
  t.switch_latency_us = 0.13;
  return t;
}

inline models::SimulationSpec simulation(models::NetworkMode mode, std::int64_t chunk_bytes = 1 << 20) {
  models::SimulationSpec s;
  s.network = mode;
  s.chunk_bytes = chunk_bytes;
  s.partition = models::PartitionStrategy::block;
  return s;
}

struct Transfer {
  int src = 0;
  int dst = 0;
  std::uint64_t bytes = 0;
};

// Sends every transfer at time zero (a source's transfers together, through
// send_all) and records when each is delivered. One rank.
class TransferRig {
 public:
  static constexpr core::EventKind kGo = 0x0300;

  TransferRig(const partition::ClusterGraph& g, models::network::NetworkConfig config)
      : graph_(g), config_(config), net_(std::make_unique<models::network::Network>(g, config)) {}

  // Each run starts on idle links.
  std::vector<core::SimTime> run(const std::vector<Transfer>& transfers) {
    net_ = std::make_unique<models::network::Network>(graph_, config_);
    transfers_ = transfers;
    delivered_.assign(transfers.size(), core::SimTime::infinity());
    const partition::RankMapping m = partition::partition(graph_, 1, partition::Strategy::block);
    core::Engine engine(core::Communicator::self(), m.vertex_rank,
                        models::network::engine_config(graph_, m, config_.mode, models::SyncMode::window));
    std::vector<char> seeded(static_cast<std::size_t>(graph_.gpu_count()), 0);
    for (const Transfer& t : transfers_) {
      if (seeded[static_cast<std::size_t>(t.src)]++) continue;
      engine.schedule_initial(core::SimTime::zero(), static_cast<core::LpId>(t.src), kGo, core::NoPayload{});
    }
    engine.run(*this);
    events_ = engine.local_stats().committed_events;
    return delivered_;
  }

  void on_event(core::Engine& engine, const core::Event& event) {
    if (event.kind == kGo) {
      std::vector<models::network::Message> batch;
      for (std::size_t i = 0; i < transfers_.size(); ++i) {
        if (transfers_[i].src != static_cast<int>(event.dst)) continue;
        models::network::Message m;
        m.src_gpu = transfers_[i].src;
        m.dst_gpu = transfers_[i].dst;
        m.bytes = transfers_[i].bytes;
        m.tag.group = static_cast<std::uint32_t>(i);
        m.flow = static_cast<std::uint32_t>(i);
        batch.push_back(m);
      }
      net_->send_all(engine, batch);
    } else if (event.kind == models::network::kChunkArrival) {
      net_->forward(engine, event);
    } else if (event.kind == models::network::kDelivery) {
      delivered_[models::network::Network::delivery(event).tag.group] = engine.now();
    }
  }

  const models::network::Network& network() const { return *net_; }
  std::uint64_t events() const { return events_; }

 private:
  const partition::ClusterGraph& graph_;
  models::network::NetworkConfig config_;
  std::unique_ptr<models::network::Network> net_;
  std::vector<Transfer> transfers_;
  std::vector<core::SimTime> delivered_;
  std::uint64_t events_ = 0;
};

inline models::network::NetworkConfig net_config(models::NetworkMode mode, std::uint64_t chunk = 1 << 20,
                                                 models::network::NvlinkFidelity nv =
                                                     models::network::NvlinkFidelity::coarse) {
  models::network::NetworkConfig c;
  c.mode = mode;
  c.chunk_bytes = chunk;
  c.nvlink = nv;
  return c;
}

}  // namespace pf::test
