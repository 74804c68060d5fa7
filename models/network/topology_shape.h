// The cluster's dimensions and per-tier link figures, derived once from the
// hardware node and the topology file (io/config/README.md) before any vertex exists.
//
// Shape rules (a Clos of up to three switch tiers):
//   - single_switch: every NIC of every server on one non-blocking leaf.
//   - fat_tree: all NICs of a server on the same leaf; `nodes_per_leaf` servers
//     per leaf. rail_optimized: NIC i of each of `nodes_per_leaf` servers on
//     the rail-i leaf of their leaf group, so a group has `nics_per_node` leaves.
//   - A pod is `pod_nodes` servers (a whole number of leaf groups); its leaves
//     and spines form a full mesh. More than one pod adds a core tier: spine k
//     of every pod connects to every core of core group k (the classic k-ary
//     fat-tree wiring), so spine index k is kept from source to destination pod.
//   - Switch ports run at NIC speed. A leaf has D design downlinks (fat_tree:
//     nodes_per_leaf * nics; rail: nodes_per_leaf) and ceil(D / leaf_os)
//     uplinks, one to each spine of its pod, carrying D * nic / leaf_os in all.
//     A spine has one downlink per leaf of a full pod and ceil(that /
//     pod_os) uplinks carrying downlink total / pod_os. Ceil keeps the port
//     count whole; the per-link bandwidth keeps the total exact.
//   - A spine tier exists when there is more than one leaf; a core tier when
//     there is more than one pod. An NVSwitch exists when a server has > 1 GPU.
#pragma once

#include "core/sim_time.h"
#include "models/spec/hardware_spec.h"
#include "models/spec/topology_spec.h"

namespace pf::models::network {

struct ClusterShape {
  models::TopologyKind kind = models::TopologyKind::single_switch;
  models::Routing routing = models::Routing::ecmp;
  int qps_per_connection = 1;  // ecmp_multi_qp: hashed sub-flows per connection

  int nodes = 1;
  int gpus_per_node = 1;
  int nics_per_node = 1;
  bool has_nvswitch = false;

  int nodes_per_leaf = 1;     // servers per leaf group (all servers for single_switch)
  int leaf_groups = 1;
  int leaves_per_group = 1;   // nics_per_node when rail_optimized, else 1
  int leaves = 1;
  int leaf_down_ports = 1;    // design downlinks of one leaf (D)
  int groups_per_pod = 1;
  int leaves_per_pod = 1;     // leaves of a full pod
  int pods = 1;
  int spines_per_pod = 0;     // = uplinks per leaf; 0 without a spine tier
  int spines = 0;
  int spine_uplinks = 0;      // per spine = cores per core group; 0 without a core tier
  int cores = 0;

  // Bandwidth per direction, bytes per second.
  double nvlink_Bps = 0;
  double attach_Bps = 0;      // GPU <-> NIC (PCIe when a NIC is shared)
  double nic_Bps = 0;
  double leaf_spine_Bps = 0;
  double spine_core_Bps = 0;

  core::SimTime nvlink_latency;  // GPU to GPU through the NVSwitch
  core::SimTime nic_latency;     // per NIC traversal: half of nic_latency_us
  core::SimTime cable_latency;   // per network cable
  core::SimTime switch_latency;  // per network switch traversal

  int gpus() const { return nodes * gpus_per_node; }
  int nics() const { return nodes * nics_per_node; }
  bool rail_optimized() const { return kind == models::TopologyKind::rail_optimized; }
};

// Validates the inputs (pf::ConfigError naming the key on a bad value) and
// derives every count and per-link figure above.
ClusterShape make_shape(const models::NodeSpec& node, const models::TopologySpec& topo);

}  // namespace pf::models::network
