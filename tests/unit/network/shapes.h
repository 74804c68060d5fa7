// Small hardware and topology descriptions shared by the network, partition
// and collective tests.
#pragma once

#include "models/spec/hardware_spec.h"
#include "models/spec/topology_spec.h"

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

// A fabric with the latencies of configs/topology/rail-optimized.yaml.
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

}  // namespace pf::test

namespace pf::models::network::test {

inline models::NodeSpec node(int gpus, int nics) { return pf::test::server(gpus, nics); }

// Round latencies (0.5 us cables, 0.6 us switches) so path sums read easily.
inline models::TopologySpec topo(models::TopologyKind kind, int nodes, int nodes_per_leaf = 16, int pod_nodes = 0) {
  models::TopologySpec t = pf::test::fabric(kind, nodes, nodes_per_leaf);
  t.pod_nodes = pod_nodes;
  t.link_latency_us = 0.5;
  t.switch_latency_us = 0.6;
  return t;
}

}  // namespace pf::models::network::test
