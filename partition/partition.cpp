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
    case Strategy::replicas: return "replicas";
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

RankMapping partition(const LpGraph& g, int ranks, Strategy strategy) {
  if (ranks < 1) throw SimulationError("partition: expected ranks >= 1, found " + std::to_string(ranks));
  check(g);
  const SuperGraph sg = contract(g);
  std::vector<int> super_rank;
  switch (strategy) {
    case Strategy::block: super_rank = block_ranks(g, sg, ranks); break;
    case Strategy::round_robin: super_rank = round_robin_ranks(g, sg, ranks); break;
    case Strategy::replicas: super_rank = ordered_block_ranks(g, sg, ranks); break;
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
