// The cluster graph's links (topology.h): every cable is two directed links,
// each with its bandwidth, latency (cable plus the device it leaves) and
// class. Ports, the queues in front of links, are link_ports.h.
#pragma once

#include <cstdint>

#include "core/sim_time.h"
#include "models/network/vertex.h"

namespace pf::models::network {

using LinkId = std::int32_t;
inline constexpr LinkId kNoLink = -1;

enum class LinkClass : std::uint8_t {
  gpu_to_nvswitch,
  nvswitch_to_gpu,
  gpu_to_nic,      // PCIe / NIC attach
  nic_to_gpu,
  nic_to_leaf,
  leaf_to_nic,
  leaf_to_spine,
  spine_to_leaf,
  spine_to_core,
  core_to_spine,
};

const char* to_string(LinkClass cls);
// Links inside one server: never cut by a partition.
constexpr bool is_intra_node(LinkClass cls) { return cls <= LinkClass::nic_to_gpu; }
// Links from a switch towards the servers (leaf->NIC, spine->leaf, core->spine).
constexpr bool is_downlink(LinkClass cls) {
  return cls == LinkClass::leaf_to_nic || cls == LinkClass::spine_to_leaf || cls == LinkClass::core_to_spine;
}

struct Link {
  VertexId src = 0;
  VertexId dst = 0;
  double bandwidth_Bps = 0;  // bytes per second, this direction
  core::SimTime latency;
  LinkClass cls = LinkClass::gpu_to_nvswitch;
  bool failed = false;       // a fault took it down: routes avoid it (faults.h)
};

}  // namespace pf::models::network
