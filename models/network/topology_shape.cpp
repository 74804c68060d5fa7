#include "models/network/topology_shape.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "core/error.h"

namespace pf::models::network {
namespace {

template <class T>
[[noreturn]] void reject(const std::string& key, const std::string& expected, T found) {
  std::ostringstream os;
  os << key << ": expected " << expected << ", found " << found;
  throw ConfigError(os.str());
}

void require_at_least(const std::string& key, int value, int min) {
  if (value < min) reject(key, "an integer >= " + std::to_string(min), value);
}

void require_positive(const std::string& key, double value) {
  if (!(value > 0) || !std::isfinite(value)) reject(key, "a number > 0", value);
}

void require_non_negative(const std::string& key, double value) {
  if (!(value >= 0) || !std::isfinite(value)) reject(key, "a number >= 0", value);
}

void validate(const models::NodeSpec& node, const models::TopologySpec& topo) {
  require_at_least("hardware.node.gpus_per_node", node.gpus_per_node, 1);
  require_at_least("hardware.node.nics_per_node", node.nics_per_node, 1);
  require_positive("hardware.node.nic_bandwidth_gbps", node.nic_bandwidth_gbps);
  require_non_negative("hardware.node.nic_latency_us", node.nic_latency_us);
  require_non_negative("hardware.node.pcie_bandwidth_gbps", node.pcie_bandwidth_gbps);
  if (node.gpus_per_node > 1) {
    require_positive("hardware.node.nvlink_bandwidth_gbps", node.nvlink_bandwidth_gbps);
    require_non_negative("hardware.node.nvlink_latency_us", node.nvlink_latency_us);
  }
  require_at_least("topology.nodes", topo.nodes, 1);
  require_at_least("topology.nodes_per_leaf", topo.nodes_per_leaf, 1);
  require_at_least("topology.pod_nodes", topo.pod_nodes, 0);
  require_positive("topology.leaf_oversubscription", topo.leaf_oversubscription);
  require_positive("topology.pod_oversubscription", topo.pod_oversubscription);
  require_non_negative("topology.link_latency_us", topo.link_latency_us);
  require_non_negative("topology.switch_latency_us", topo.switch_latency_us);
  if (topo.kind != models::TopologyKind::single_switch && topo.pod_nodes % topo.nodes_per_leaf != 0) {
    reject("topology.pod_nodes", "a multiple of nodes_per_leaf (" + std::to_string(topo.nodes_per_leaf) + ")",
           topo.pod_nodes);
  }
}

int ceil_div(int a, int b) { return (a + b - 1) / b; }

// Ports needed to carry `ports_down` port-speed links divided by `ratio`; the
// epsilon keeps 16 / 2.0 at exactly 8 despite rounding in the ratio.
int uplink_ports(int ports_down, double ratio) {
  return std::max(1, static_cast<int>(std::ceil(ports_down / ratio - 1e-9)));
}

void derive_switch_tiers(const models::TopologySpec& topo, ClusterShape& s) {
  const bool single = topo.kind == models::TopologyKind::single_switch;
  s.nodes_per_leaf = single ? s.nodes : topo.nodes_per_leaf;
  s.leaf_groups = ceil_div(s.nodes, s.nodes_per_leaf);
  s.leaves_per_group = s.rail_optimized() ? s.nics_per_node : 1;
  s.leaves = s.leaf_groups * s.leaves_per_group;
  s.leaf_down_ports = s.rail_optimized() ? s.nodes_per_leaf : s.nodes_per_leaf * s.nics_per_node;

  s.groups_per_pod = (single || topo.pod_nodes == 0) ? s.leaf_groups : topo.pod_nodes / s.nodes_per_leaf;
  s.pods = ceil_div(s.leaf_groups, s.groups_per_pod);
  s.leaves_per_pod = s.groups_per_pod * s.leaves_per_group;

  if (s.leaves > 1) {
    s.spines_per_pod = uplink_ports(s.leaf_down_ports, topo.leaf_oversubscription);
    s.spines = s.spines_per_pod * s.pods;
    s.leaf_spine_Bps = s.leaf_down_ports * s.nic_Bps / topo.leaf_oversubscription / s.spines_per_pod;
  }
  if (s.pods > 1) {
    s.spine_uplinks = uplink_ports(s.leaves_per_pod, topo.pod_oversubscription);
    s.cores = s.spines_per_pod * s.spine_uplinks;
    s.spine_core_Bps = s.leaves_per_pod * s.leaf_spine_Bps / topo.pod_oversubscription / s.spine_uplinks;
  }
}

}  // namespace

ClusterShape make_shape(const models::NodeSpec& node, const models::TopologySpec& topo) {
  validate(node, topo);
  ClusterShape s;
  s.kind = topo.kind;
  s.routing = topo.routing;
  s.qps_per_connection = topo.qps_per_connection;
  s.nodes = topo.nodes;
  s.gpus_per_node = node.gpus_per_node;
  s.nics_per_node = node.nics_per_node;
  s.has_nvswitch = node.gpus_per_node > 1;

  // Links run at their achievable rate: line rate x the preset's measured efficiency.
  s.nvlink_Bps = node.nvlink_bandwidth_gbps * node.nvlink_efficiency * 1e9;  // GB/s
  s.nic_Bps = node.nic_bandwidth_gbps * node.nic_efficiency * 1e9 / 8.0;     // Gb/s: NICs are quoted in bits
  // io/config/README.md (pcie_bandwidth_gbps): PCIe bandwidth applies only when a NIC is
  // shared by several GPUs; a NIC that serves one GPU is fed at its line rate.
  const bool shared_nic = node.gpus_per_node > node.nics_per_node;
  s.attach_Bps = (shared_nic && node.pcie_bandwidth_gbps > 0) ? node.pcie_bandwidth_gbps * 1e9 : s.nic_Bps;

  s.nvlink_latency = core::SimTime::from_us(node.nvlink_latency_us);
  // nic_latency_us is the end-to-end figure of a GPUDirect RDMA message (the
  // presets cite OSU latency benchmarks), so each of the two NICs adds half.
  s.nic_latency = core::SimTime::from_us(node.nic_latency_us / 2);
  s.cable_latency = core::SimTime::from_us(topo.link_latency_us);
  s.switch_latency = core::SimTime::from_us(topo.switch_latency_us);

  derive_switch_tiers(topo, s);
  return s;
}

}  // namespace pf::models::network
