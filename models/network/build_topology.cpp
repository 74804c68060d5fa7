// Builds the vertices and cables of a ClusterGraph from its shape. Ids are laid
// out in blocks (see topology.h) so that every structural lookup is
// arithmetic; this file is the one place that has to agree with those formulas.
#include <cstdint>
#include <limits>
#include <string>

#include "core/error.h"
#include "models/network/topology.h"

namespace pf::models::network {
namespace {

std::int64_t cable_count(const ClusterShape& s) {
  const std::int64_t gpus = s.gpus();
  return (s.has_nvswitch ? gpus : 0) + gpus + s.nics() + std::int64_t{s.leaves} * s.spines_per_pod +
         std::int64_t{s.spines} * s.spine_uplinks;
}

int pod_of_node(const ClusterShape& s, int node) { return node / s.nodes_per_leaf / s.groups_per_pod; }

}  // namespace

ClusterGraph::ClusterGraph(const ClusterShape& shape) : shape_(shape), graph_(std::make_unique<Graph>()) {
  const std::int64_t cables = cable_count(shape_);
  if (2 * cables > std::numeric_limits<LinkId>::max()) {
    throw ConfigError("topology: expected at most " + std::to_string(std::numeric_limits<LinkId>::max() / 2) +
                      " cables, found " + std::to_string(cables));
  }
  place_gpus();
  add_vertices();
  links_.reserve(static_cast<std::size_t>(2 * cables));
  add_cables();
  index_out_links();
}

// GPU i of a server uses NIC i*nics/gpus (rail i); a rail-optimized fabric
// wires rail r of every server in a group of nodes_per_leaf to that group's
// leaf r, any other fabric all NICs of those servers to one leaf.
void ClusterGraph::place_gpus() {
  const ClusterShape& s = shape_;
  gpu_place_.resize(static_cast<std::size_t>(s.gpus()));
  for (int g = 0; g < s.gpus(); ++g) {
    const int node = g / s.gpus_per_node;
    const int local = g % s.gpus_per_node;
    gpu_place_[static_cast<std::size_t>(g)] = {node, node * s.nics_per_node + local * s.nics_per_node / s.gpus_per_node};
  }
  nic_leaf_.resize(static_cast<std::size_t>(s.nics()));
  for (int nic = 0; nic < s.nics(); ++nic) {
    const int node = nic / s.nics_per_node;
    const int rail = s.rail_optimized() ? nic % s.nics_per_node : 0;
    nic_leaf_[static_cast<std::size_t>(nic)] = node / s.nodes_per_leaf * s.leaves_per_group + rail;
  }
}

void ClusterGraph::add_vertices() {
  const ClusterShape& s = shape_;
  const std::array<int, kVertexKinds> counts{s.gpus(), s.has_nvswitch ? s.nodes : 0, s.nics(),
                                             s.leaves, s.spines, s.cores};
  kind_first_[0] = 0;
  for (std::size_t k = 0; k < counts.size(); ++k) kind_first_[k + 1] = kind_first_[k] + counts[k];
  vertices_.reserve(static_cast<std::size_t>(kind_first_.back()));

  for (int g = 0; g < s.gpus(); ++g) {
    const int node = g / s.gpus_per_node;
    vertices_.push_back({VertexKind::gpu, g, node, pod_of_node(s, node)});
  }
  for (int n = 0; n < counts[1]; ++n) vertices_.push_back({VertexKind::nvswitch, n, n, pod_of_node(s, n)});
  for (int i = 0; i < s.nics(); ++i) {
    const int node = i / s.nics_per_node;
    vertices_.push_back({VertexKind::nic, i, node, pod_of_node(s, node)});
  }
  for (int l = 0; l < s.leaves; ++l) vertices_.push_back({VertexKind::leaf, l, -1, pod_of_leaf(l)});
  for (int sp = 0; sp < s.spines; ++sp) vertices_.push_back({VertexKind::spine, sp, -1, sp / s.spines_per_pod});
  for (int c = 0; c < s.cores; ++c) vertices_.push_back({VertexKind::core, c, -1, -1});

  for (const Vertex& v : vertices_) boost::add_vertex(v, *graph_);
}

void ClusterGraph::add_cable(VertexId lower, VertexId upper, double bandwidth_Bps, core::SimTime up_latency,
                             core::SimTime down_latency, LinkClass up_class) {
  // Classes come in (up, down) pairs in the enum, so the down class is the next one.
  const auto down_class = static_cast<LinkClass>(static_cast<int>(up_class) + 1);
  const Link up{lower, upper, bandwidth_Bps, up_latency, up_class};
  const Link down{upper, lower, bandwidth_Bps, down_latency, down_class};
  links_.push_back(up);
  links_.push_back(down);
  boost::add_edge(static_cast<std::size_t>(lower), static_cast<std::size_t>(upper), up, *graph_);
  boost::add_edge(static_cast<std::size_t>(upper), static_cast<std::size_t>(lower), down, *graph_);
}

void ClusterGraph::add_cables() {
  const ClusterShape& s = shape_;
  const core::SimTime zero = core::SimTime::zero();
  const core::SimTime nv_up = core::SimTime::from_ps(s.nvlink_latency.ps / 2);
  const core::SimTime nv_down = s.nvlink_latency - nv_up;  // halves sum exactly
  const core::SimTime from_nic = s.cable_latency + s.nic_latency;
  const core::SimTime from_switch = s.cable_latency + s.switch_latency;

  nvlink_base_ = link_count();
  if (s.has_nvswitch) {
    for (int g = 0; g < s.gpus(); ++g) {
      add_cable(g, vertex_of(VertexKind::nvswitch, node_of_gpu(g)), s.nvlink_Bps, nv_up, nv_down,
                LinkClass::gpu_to_nvswitch);
    }
  }
  attach_base_ = link_count();
  for (int g = 0; g < s.gpus(); ++g) {
    add_cable(g, vertex_of(VertexKind::nic, nic_of_gpu(g)), s.attach_Bps, zero, s.nic_latency, LinkClass::gpu_to_nic);
  }
  nic_leaf_base_ = link_count();
  for (int i = 0; i < s.nics(); ++i) {
    add_cable(vertex_of(VertexKind::nic, i), vertex_of(VertexKind::leaf, leaf_of_nic(i)), s.nic_Bps, from_nic,
              from_switch, LinkClass::nic_to_leaf);
  }
  leaf_spine_base_ = link_count();
  for (int l = 0; l < s.leaves; ++l) {
    for (int k = 0; k < s.spines_per_pod; ++k) {
      add_cable(vertex_of(VertexKind::leaf, l), vertex_of(VertexKind::spine, spine_of(pod_of_leaf(l), k)),
                s.leaf_spine_Bps, from_switch, from_switch, LinkClass::leaf_to_spine);
    }
  }
  spine_core_base_ = link_count();
  for (int sp = 0; sp < s.spines; ++sp) {
    for (int c = 0; c < s.spine_uplinks; ++c) {
      add_cable(vertex_of(VertexKind::spine, sp), vertex_of(VertexKind::core, core_of(sp % s.spines_per_pod, c)),
                s.spine_core_Bps, from_switch, from_switch, LinkClass::spine_to_core);
    }
  }
}

void ClusterGraph::index_out_links() {
  out_offset_.assign(vertices_.size() + 1, 0);
  for (const Link& l : links_) ++out_offset_[static_cast<std::size_t>(l.src) + 1];
  for (std::size_t v = 0; v < vertices_.size(); ++v) out_offset_[v + 1] += out_offset_[v];
  out_links_.resize(links_.size());
  std::vector<std::int32_t> fill(out_offset_.begin(), out_offset_.end() - 1);
  for (LinkId l = 0; l < link_count(); ++l) {
    out_links_[static_cast<std::size_t>(fill[static_cast<std::size_t>(link(l).src)]++)] = l;
  }
}

ClusterGraph build_cluster(const models::NodeSpec& node, const models::TopologySpec& topo) {
  return ClusterGraph(make_shape(node, topo));
}

}  // namespace pf::models::network
