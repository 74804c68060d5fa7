// block and round_robin: place servers by number, then switches by majority.
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

void place_switches(const ClusterGraph& g, const SuperGraph& sg, int ranks, std::vector<int>& super_rank) {
  std::vector<int> owners;
  // Vertex order is leaves, spines, cores: each tier's downlinks reach a tier
  // already placed.
  for (VertexId v = g.first(VertexKind::leaf); v < g.vertex_count(); ++v) {
    owners.clear();
    for (LinkId l : g.out_links(v)) {
      const Link& link = g.link(l);
      if (!is_downlink(link.cls)) continue;
      owners.push_back(super_rank[static_cast<std::size_t>(sg.super_of[static_cast<std::size_t>(link.dst)])]);
    }
    const int index = g.vertex(v).index;
    const int rank = owners.empty() ? index % ranks : majority(owners, index);
    super_rank[static_cast<std::size_t>(sg.super_of[static_cast<std::size_t>(v)])] = rank;
  }
}

std::vector<int> block_ranks(const ClusterGraph& g, const SuperGraph& sg, int ranks) {
  std::vector<int> super_rank(static_cast<std::size_t>(sg.supers), 0);
  for (int n = 0; n < sg.servers; ++n) {
    super_rank[static_cast<std::size_t>(n)] =
        static_cast<int>(static_cast<std::int64_t>(n) * ranks / sg.servers);  // equal counts, +-1
  }
  place_switches(g, sg, ranks, super_rank);
  return super_rank;
}

std::vector<int> round_robin_ranks(const ClusterGraph& g, const SuperGraph& sg, int ranks) {
  std::vector<int> super_rank(static_cast<std::size_t>(sg.supers), 0);
  for (int n = 0; n < sg.servers; ++n) super_rank[static_cast<std::size_t>(n)] = n % ranks;
  place_switches(g, sg, ranks, super_rank);
  return super_rank;
}

}  // namespace pf::partition
