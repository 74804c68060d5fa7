#include "models/network/topology.h"

namespace pf::models::network {

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
         out_offset_.capacity() * sizeof(std::int32_t) + out_links_.capacity() * sizeof(LinkId) +
         gpu_place_.capacity() * sizeof(GpuPlace) + nic_leaf_.capacity() * sizeof(std::int32_t);
}

}  // namespace pf::models::network
