#include "models/network/lp_partition.h"

#include <string>

#include "core/error.h"

namespace pf::models::network {

std::vector<double> default_vertex_events(const ClusterGraph& g) {
  std::vector<double> events(static_cast<std::size_t>(g.vertex_count()));
  for (VertexId v = 0; v < g.vertex_count(); ++v) {
    events[static_cast<std::size_t>(v)] = static_cast<double>(g.out_links(v).size());
  }
  return events;
}

partition::LpGraph lp_graph(const ClusterGraph& g, std::span<const GpuTraffic> traffic,
                            std::span<const double> vertex_events, std::span<const std::int32_t> server_order) {
  if (!vertex_events.empty() && vertex_events.size() != static_cast<std::size_t>(g.vertex_count())) {
    throw SimulationError("partition: expected " + std::to_string(g.vertex_count()) + " vertex weights, found " +
                          std::to_string(vertex_events.size()));
  }
  partition::LpGraph lp;
  lp.groups = g.shape().nodes;
  const auto n = static_cast<std::size_t>(g.vertex_count());
  lp.group.resize(n);
  lp.placement_index.resize(n);
  for (std::size_t v = 0; v < n; ++v) {
    const Vertex& vx = g.vertex(static_cast<VertexId>(v));
    lp.group[v] = is_switch(vx.kind) ? -1 : vx.node;
    lp.placement_index[v] = vx.index;
  }
  lp.events = vertex_events.empty() ? default_vertex_events(g)
                                    : std::vector<double>(vertex_events.begin(), vertex_events.end());
  const std::vector<double> weight =
      traffic.empty() ? std::vector<double>(static_cast<std::size_t>(g.link_count()), 1.0) : link_loads(g, traffic);
  lp.edges.reserve(static_cast<std::size_t>(g.link_count()));
  for (LinkId l = 0; l < g.link_count(); ++l) {
    const Link& link = g.link(l);
    lp.edges.push_back({link.src, link.dst, link.latency, weight[static_cast<std::size_t>(l)], is_downlink(link.cls)});
  }
  lp.out_offset.reserve(n + 1);
  lp.out_offset.push_back(0);
  lp.out_edges.reserve(static_cast<std::size_t>(g.link_count()));
  for (VertexId v = 0; v < g.vertex_count(); ++v) {
    for (const LinkId l : g.out_links(v)) lp.out_edges.push_back(l);
    lp.out_offset.push_back(static_cast<std::int32_t>(lp.out_edges.size()));
  }
  lp.group_order.assign(server_order.begin(), server_order.end());
  return lp;
}

partition::RankMapping partition_cluster(const ClusterGraph& g, int ranks, partition::Strategy strategy,
                                         std::span<const GpuTraffic> traffic, std::span<const double> vertex_events,
                                         std::span<const std::int32_t> server_order) {
  return partition::partition(lp_graph(g, traffic, vertex_events, server_order), ranks, strategy);
}

}  // namespace pf::models::network
