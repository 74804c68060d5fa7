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

std::vector<LpIndex> RankMapping::vertices_on(int rank) const {
  std::vector<LpIndex> out;
  for (std::size_t v = 0; v < vertex_rank.size(); ++v) {
    if (vertex_rank[v] == rank) out.push_back(static_cast<LpIndex>(v));
  }
  return out;
}

void check(const LpGraph& g) {
  const auto n = static_cast<std::size_t>(g.lp_count());
  const auto fail = [](const std::string& what) { throw SimulationError("partition: LP graph: " + what); };
  if (g.placement_index.size() != n || g.events.size() != n) fail("per-LP arrays of different lengths");
  if (g.out_offset.size() != n + 1 || g.out_offset.front() != 0 ||
      g.out_offset.back() != static_cast<std::int32_t>(g.out_edges.size()))
    fail("out-edge offsets do not match the out-edge list");
  for (std::size_t v = 0; v < n; ++v) {
    if (g.group[v] < -1 || g.group[v] >= g.groups)
      fail("LP " + std::to_string(v) + " has group " + std::to_string(g.group[v]) + ", expected -1 .. " +
           std::to_string(g.groups - 1));
  }
  for (const LpEdge& e : g.edges) {
    if (e.src < 0 || e.dst < 0 || static_cast<std::size_t>(e.src) >= n || static_cast<std::size_t>(e.dst) >= n)
      fail("an edge " + std::to_string(e.src) + " -> " + std::to_string(e.dst) + " leaves the graph");
  }
  for (const std::int32_t e : g.out_edges) {
    if (e < 0 || e >= g.edge_count()) fail("out-edge index " + std::to_string(e) + " out of range");
  }
}

RankMapping partition(const LpGraph& g, int ranks, Strategy strategy) {
  if (ranks < 1) throw SimulationError("partition: expected ranks >= 1, found " + std::to_string(ranks));
  check(g);
  const SuperGraph sg = contract(g);
  std::vector<int> super_rank;
  switch (strategy) {
    case Strategy::block: super_rank = block_ranks(g, sg, ranks); break;
    case Strategy::round_robin: super_rank = round_robin_ranks(g, sg, ranks); break;
    case Strategy::metis: super_rank = metis_ranks(sg, ranks); break;
  }

  RankMapping m;
  m.ranks = ranks;
  m.strategy = strategy;
  m.vertex_rank.resize(static_cast<std::size_t>(g.lp_count()));
  for (std::size_t v = 0; v < m.vertex_rank.size(); ++v) {
    m.vertex_rank[v] = super_rank[static_cast<std::size_t>(sg.super_of[v])];
  }
  m.report = make_report(g, m.vertex_rank, ranks);
  return m;
}

}  // namespace pf::partition
