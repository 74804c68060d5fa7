#include "partition/partition_report.h"

#include <algorithm>
#include <cstdio>
#include <tuple>

namespace pf::partition {
namespace {

std::vector<ChannelLookahead> merge_channels(std::vector<ChannelLookahead> crossings) {
  std::sort(crossings.begin(), crossings.end(), [](const ChannelLookahead& a, const ChannelLookahead& b) {
    return std::tie(a.from, a.to) < std::tie(b.from, b.to);
  });
  std::vector<ChannelLookahead> merged;
  for (const ChannelLookahead& c : crossings) {
    if (!merged.empty() && merged.back().from == c.from && merged.back().to == c.to) {
      merged.back().min_latency = std::min(merged.back().min_latency, c.min_latency);
      merged.back().links += c.links;
    } else {
      merged.push_back(c);
    }
  }
  return merged;
}

}  // namespace

PartitionReport make_report(const LpGraph& g, std::span<const int> vertex_rank, int ranks) {
  PartitionReport r;
  r.ranks = ranks;
  r.rank_load.assign(static_cast<std::size_t>(ranks), 0.0);
  double total = 0;
  for (std::size_t i = 0; i < g.events.size(); ++i) {
    r.rank_load[static_cast<std::size_t>(vertex_rank[i])] += g.events[i];
    total += g.events[i];
  }
  const double max_load = *std::max_element(r.rank_load.begin(), r.rank_load.end());
  r.imbalance = total > 0 ? max_load / (total / ranks) : 1.0;

  std::vector<ChannelLookahead> crossings;
  for (const LpEdge& e : g.edges) {
    const int a = vertex_rank[static_cast<std::size_t>(e.src)];
    const int b = vertex_rank[static_cast<std::size_t>(e.dst)];
    if (a == b) continue;
    ++r.cut_links;
    r.cut_weight += e.weight;
    r.lookahead = std::min(r.lookahead, e.latency);
    crossings.push_back({a, b, e.latency, 1});
  }
  r.channels = merge_channels(std::move(crossings));
  return r;
}

std::vector<core::SimTime> PartitionReport::channel_matrix() const {
  const auto n = static_cast<std::size_t>(ranks);
  std::vector<core::SimTime> m(n * n, core::SimTime::infinity());
  for (const ChannelLookahead& c : channels) {
    m[static_cast<std::size_t>(c.from) * n + static_cast<std::size_t>(c.to)] = c.min_latency;
  }
  return m;
}

std::string summarize(const PartitionReport& r) {
  char lookahead[48];
  if (r.lookahead.is_infinite()) {
    std::snprintf(lookahead, sizeof lookahead, "infinite");
  } else {
    std::snprintf(lookahead, sizeof lookahead, "%.3f us", r.lookahead.us());
  }
  char line[256];
  std::snprintf(line, sizeof line, "ranks %d, cut %lld links (weight %.6g), imbalance %.3f, lookahead %s, %zu channels",
                r.ranks, static_cast<long long>(r.cut_links), r.cut_weight, r.imbalance, lookahead,
                r.channels.size());
  return line;
}

}  // namespace pf::partition
