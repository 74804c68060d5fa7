// Small hardware and topology descriptions shared by the partition tests.
#pragma once

#include "models/spec/hardware_spec.h"
#include "models/spec/topology_spec.h"

namespace pf::partition::test {

// An A100-like server: line rates match configs/hardware/a100-sxm-80gb.yaml.
inline models::NodeSpec node(int gpus, int nics) {
  models::NodeSpec n;
  n.gpus_per_node = gpus;
  n.nvlink_bandwidth_gbps = 300;
  n.nvlink_latency_us = 0.7;
  n.nics_per_node = nics;
  n.nic_bandwidth_gbps = 200;
  n.nic_latency_us = 2.0;
  n.pcie_bandwidth_gbps = 32;
  return n;
}

inline models::TopologySpec topo(models::TopologyKind kind, int nodes, int nodes_per_leaf = 16, int pod_nodes = 0) {
  models::TopologySpec t;
  t.kind = kind;
  t.nodes = nodes;
  t.nodes_per_leaf = nodes_per_leaf;
  t.pod_nodes = pod_nodes;
  t.link_latency_us = 0.5;
  t.switch_latency_us = 0.6;
  return t;
}

}  // namespace pf::partition::test
