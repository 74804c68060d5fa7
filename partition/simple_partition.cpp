// block, round_robin and replicas: place groups by number (or by the
// caller's order), then free LPs by majority.
#include <algorithm>
#include <cstdint>

#include "partition/strategies.h"

namespace pf::partition {
namespace {

// The most frequent rank in `owners`; among equally frequent ranks (sorted),
// the one at position `rotation` modulo their count.
int majority(std::vector<int>& owners, int rotation) {
  std::sort(owners.begin(), owners.end());
  std::vector<int> tied;
  std::size_t best = 0;
  for (std::size_t i = 0; i < owners.size();) {
    std::size_t j = i;
    while (j < owners.size() && owners[j] == owners[i]) ++j;
    if (j - i > best) {
      best = j - i;
      tied.clear();
    }
    if (j - i == best) tied.push_back(owners[i]);
    i = j;
  }
  return tied[static_cast<std::size_t>(rotation) % tied.size()];
}

}  // namespace

void place_free_lps(const LpGraph& g, const SuperGraph& sg, int ranks, std::vector<int>& super_rank) {
  std::vector<int> owners;
  // LP order puts the targets of a free LP's toward_groups edges before it
  // (leaves, spines, cores): each one's targets are already placed.
  for (std::size_t v = 0; v < g.group.size(); ++v) {
    if (g.group[v] >= 0) continue;
    owners.clear();
    for (auto i = static_cast<std::size_t>(g.out_offset[v]); i < static_cast<std::size_t>(g.out_offset[v + 1]); ++i) {
      const LpEdge& e = g.edges[static_cast<std::size_t>(g.out_edges[i])];
      if (!e.toward_groups) continue;
      owners.push_back(super_rank[static_cast<std::size_t>(sg.super_of[static_cast<std::size_t>(e.dst)])]);
    }
    const int index = g.placement_index[v];
    const int rank = owners.empty() ? index % ranks : majority(owners, index);
    super_rank[static_cast<std::size_t>(sg.super_of[v])] = rank;
  }
}

namespace {

// Groups in contiguous runs of equal count (+-1) along `order` (group
// number order when null), then free LPs by majority.
std::vector<int> runs_along(const LpGraph& g, const SuperGraph& sg, int ranks, const std::vector<std::int32_t>* order) {
  std::vector<int> super_rank(static_cast<std::size_t>(sg.supers), 0);
  for (int at = 0; at < sg.servers; ++at) {
    const std::int32_t group = order != nullptr ? (*order)[static_cast<std::size_t>(at)] : at;
    super_rank[static_cast<std::size_t>(group)] = static_cast<int>(static_cast<std::int64_t>(at) * ranks / sg.servers);
  }
  place_free_lps(g, sg, ranks, super_rank);
  return super_rank;
}

}  // namespace

std::vector<int> block_ranks(const LpGraph& g, const SuperGraph& sg, int ranks) {
  return runs_along(g, sg, ranks, nullptr);
}

std::vector<int> ordered_block_ranks(const LpGraph& g, const SuperGraph& sg, int ranks) {
  return runs_along(g, sg, ranks, g.group_order.empty() ? nullptr : &g.group_order);
}

std::vector<int> round_robin_ranks(const LpGraph& g, const SuperGraph& sg, int ranks) {
  std::vector<int> super_rank(static_cast<std::size_t>(sg.supers), 0);
  for (int n = 0; n < sg.servers; ++n) super_rank[static_cast<std::size_t>(n)] = n % ranks;
  place_free_lps(g, sg, ranks, super_rank);
  return super_rank;
}

}  // namespace pf::partition
