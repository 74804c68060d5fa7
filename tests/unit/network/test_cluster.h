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
#include "models/network/lp_partition.h"
#include "models/network/topology.h"
#include "tests/unit/network/shapes.h"

namespace pf::test {

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

// Every GPU sends `bytes` to every GPU of the other servers at once.
inline std::vector<Transfer> cross_leaf_all_to_all(const models::network::ClusterGraph& g, std::uint64_t bytes) {
  std::vector<Transfer> out;
  for (int s = 0; s < g.gpu_count(); ++s)
    for (int d = 0; d < g.gpu_count(); ++d)
      if (g.node_of_gpu(s) != g.node_of_gpu(d)) out.push_back({s, d, bytes});
  return out;
}

// Sends every transfer at time zero (a source's transfers together, through
// send_all) and records when each is delivered. One rank.
class TransferRig {
 public:
  struct Go {};  // a source GPU sends its transfers

  TransferRig(const models::network::ClusterGraph& g, models::network::NetworkConfig config)
      : graph_(g), config_(config), net_(std::make_unique<models::network::Network>(g, config)) {}

  // Each run starts on idle links.
  std::vector<core::SimTime> run(const std::vector<Transfer>& transfers) {
    net_ = std::make_unique<models::network::Network>(graph_, config_);
    transfers_ = transfers;
    delivered_.assign(transfers.size(), core::SimTime::infinity());
    const partition::RankMapping m = models::network::partition_cluster(graph_, 1, partition::Strategy::block);
    core::Engine engine(core::Communicator::local(), m.vertex_rank,
                        models::network::engine_config(graph_, m, config_.mode, models::SyncMode::window));
    std::vector<char> seeded(static_cast<std::size_t>(graph_.gpu_count()), 0);
    for (const Transfer& t : transfers_) {
      if (seeded[static_cast<std::size_t>(t.src)]++) continue;
      engine.schedule_initial(core::SimTime::zero(), static_cast<core::LpId>(t.src), Go{});
    }
    engine.run(*this);
    events_ = engine.local_stats().committed_events;
    return delivered_;
  }

  void on_event(core::LpContext& engine, const core::Event& event) {
    if (event.kind == core::kind_of<Go>) {
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
    } else if (event.kind == core::kind_of<models::network::ChunkArrival>) {
      net_->forward(engine, event.as<models::network::ChunkArrival>());
    } else if (event.kind == core::kind_of<models::network::MessageDelivered>) {
      delivered_[models::network::Network::delivery(event.as<models::network::MessageDelivered>()).tag.group] =
          engine.now();
    }
  }

  const models::network::Network& network() const { return *net_; }
  std::uint64_t events() const { return events_; }

 private:
  const models::network::ClusterGraph& graph_;
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
