#include "partition/partition.h"

#include <string>

#include "core/error.h"
#include "partition/strategies.h"
#include "partition/super_graph.h"

namespace pf::partition {

const char* to_string(Strategy strategy) {
  switch (strategy) {
    case Strategy::metis: return "metis";
    case Strategy::block: return "block";
    case Strategy::round_robin: return "round_robin";
  }
  return "?";
}

std::vector<VertexId> RankMapping::vertices_on(int rank) const {
  std::vector<VertexId> out;
  for (std::size_t v = 0; v < vertex_rank.size(); ++v) {
    if (vertex_rank[v] == rank) out.push_back(static_cast<VertexId>(v));
  }
  return out;
}

std::vector<double> default_vertex_events(const ClusterGraph& g) {
  std::vector<double> events(static_cast<std::size_t>(g.vertex_count()));
  for (VertexId v = 0; v < g.vertex_count(); ++v) {
    events[static_cast<std::size_t>(v)] = static_cast<double>(g.out_links(v).size());
  }
  return events;
}

RankMapping partition(const ClusterGraph& g, int ranks, Strategy strategy, std::span<const GpuTraffic> traffic,
                      std::span<const double> vertex_events) {
  if (ranks < 1) throw SimulationError("partition: expected ranks >= 1, found " + std::to_string(ranks));
  if (!vertex_events.empty() && vertex_events.size() != static_cast<std::size_t>(g.vertex_count())) {
    throw SimulationError("partition: expected " + std::to_string(g.vertex_count()) + " vertex weights, found " +
                          std::to_string(vertex_events.size()));
  }
  const std::vector<double> events = vertex_events.empty()
                                         ? default_vertex_events(g)
                                         : std::vector<double>(vertex_events.begin(), vertex_events.end());
  const std::vector<double> link_weight =
      traffic.empty() ? std::vector<double>(static_cast<std::size_t>(g.link_count()), 1.0) : link_loads(g, traffic);

  const SuperGraph sg = contract(g, events, link_weight);
  std::vector<int> super_rank;
  switch (strategy) {
    case Strategy::block: super_rank = block_ranks(g, sg, ranks); break;
    case Strategy::round_robin: super_rank = round_robin_ranks(g, sg, ranks); break;
    case Strategy::metis: super_rank = metis_ranks(sg, ranks); break;
  }

  RankMapping m;
  m.ranks = ranks;
  m.strategy = strategy;
  m.vertex_rank.resize(static_cast<std::size_t>(g.vertex_count()));
  for (std::size_t v = 0; v < m.vertex_rank.size(); ++v) {
    m.vertex_rank[v] = super_rank[static_cast<std::size_t>(sg.super_of[v])];
  }
  m.report = make_report(g, m.vertex_rank, ranks, events, link_weight);
  return m;
}

}  // namespace pf::partition
