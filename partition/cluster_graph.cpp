#include "partition/cluster_graph.h"

namespace pf::partition {

const char* to_string(VertexKind kind) {
  switch (kind) {
    case VertexKind::gpu: return "gpu";
    case VertexKind::nvswitch: return "nvswitch";
    case VertexKind::nic: return "nic";
    case VertexKind::leaf: return "leaf";
    case VertexKind::spine: return "spine";
    case VertexKind::core: return "core";
  }
  return "?";
}

const char* to_string(LinkClass cls) {
  switch (cls) {
    case LinkClass::gpu_to_nvswitch: return "gpu_to_nvswitch";
    case LinkClass::nvswitch_to_gpu: return "nvswitch_to_gpu";
    case LinkClass::gpu_to_nic: return "gpu_to_nic";
    case LinkClass::nic_to_gpu: return "nic_to_gpu";
    case LinkClass::nic_to_leaf: return "nic_to_leaf";
    case LinkClass::leaf_to_nic: return "leaf_to_nic";
    case LinkClass::leaf_to_spine: return "leaf_to_spine";
    case LinkClass::spine_to_leaf: return "spine_to_leaf";
    case LinkClass::spine_to_core: return "spine_to_core";
    case LinkClass::core_to_spine: return "core_to_spine";
  }
  return "?";
}

bool is_switch(VertexKind kind) {
  return kind == VertexKind::leaf || kind == VertexKind::spine || kind == VertexKind::core;
}

LinkId ClusterGraph::find_link(VertexId src, VertexId dst) const {
  if (src < 0 || src >= vertex_count() || dst < 0 || dst >= vertex_count()) return kNoLink;
  for (LinkId l : out_links(src))
    if (link(l).dst == dst) return l;
  return kNoLink;
}

void ClusterGraph::sync_bundle(LinkId l) {
  const Link& value = link(l);
  const auto [edge, found] = boost::edge(static_cast<std::size_t>(value.src), static_cast<std::size_t>(value.dst), *graph_);
  if (found) (*graph_)[edge] = value;
}

void ClusterGraph::set_link_figures(LinkId l, double bandwidth_Bps, core::SimTime latency) {
  Link& value = links_[static_cast<std::size_t>(l)];
  value.bandwidth_Bps = bandwidth_Bps;
  value.latency = latency;
  sync_bundle(l);
}

void ClusterGraph::fail_link(LinkId l) {
  Link& value = links_[static_cast<std::size_t>(l)];
  if (value.failed) return;
  value.failed = true;
  ++failed_links_;
  sync_bundle(l);
}

std::size_t ClusterGraph::memory_bytes() const {
  // Boost's vecS adjacency_list keeps per vertex an out-edge vector plus the
  // bundle, and per edge the target plus the bundle (held in place).
  const std::size_t bgl = vertices_.size() * (sizeof(Vertex) + sizeof(std::vector<char>)) +
                          links_.size() * (sizeof(Link) + sizeof(std::size_t));
  return bgl + vertices_.capacity() * sizeof(Vertex) + links_.capacity() * sizeof(Link) +
         out_offset_.capacity() * sizeof(std::int32_t) + out_links_.capacity() * sizeof(LinkId);
}

}  // namespace pf::partition
