// The cluster network (io/config/README.md, topology): a Clos of up to three
// switch tiers above the GPU servers.
#pragma once

namespace pf::models {

enum class TopologyKind { single_switch, fat_tree, rail_optimized };
enum class Routing { ecmp, single_path, adaptive, ecmp_multi_qp };

struct TopologySpec {
  TopologyKind kind = TopologyKind::single_switch;
  int nodes = 1;                        // GPU servers
  int nodes_per_leaf = 16;              // servers under one leaf (per rail when rail_optimized)
  double leaf_oversubscription = 1.0;   // leaf downlink:uplink bandwidth
  int pod_nodes = 0;                    // servers per pod; 0 = one pod
  double pod_oversubscription = 1.0;    // spine-to-core ratio between pods
  double link_latency_us = 0.5;         // per cable
  double switch_latency_us = 0.6;       // per switch traversal
  Routing routing = Routing::ecmp;
  // ecmp_multi_qp: queue pairs per connection, each hashed onto its own path
  // (NCCL_IB_QPS_PER_CONNECTION, default 1 in NCCL's src/transport/net_ib.cc).
  int qps_per_connection = 1;
};

}  // namespace pf::models
