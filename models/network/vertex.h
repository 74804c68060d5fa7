// The cluster graph's vertices (topology.h): GPUs, NVSwitches, NICs and the
// leaf, spine and core switches of the fabric. Every vertex is an LP; a
// switch's forwarding is Network::forward (network.h) over its out-links.
#pragma once

#include <cstdint>

namespace pf::models::network {

using VertexId = std::int32_t;

enum class VertexKind : std::uint8_t { gpu, nvswitch, nic, leaf, spine, core };
inline constexpr int kVertexKinds = 6;

const char* to_string(VertexKind kind);
// Leaf, spine and core switches (an NVSwitch belongs to its server).
bool is_switch(VertexKind kind);

struct Vertex {
  VertexKind kind = VertexKind::gpu;
  std::int32_t index = 0;  // position among vertices of its kind (a GPU's global index, a leaf's number)
  std::int32_t node = -1;  // server, -1 for network switches
  std::int32_t pod = -1;   // pod of a server, leaf or spine; -1 for core switches
};

}  // namespace pf::models::network
