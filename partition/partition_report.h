// What a rank mapping costs: cut edges, load balance and the lookahead the
// engine may use (ns-3's CalculateLookAhead idea: the smallest latency of any
// edge whose ends are simulated on different ranks).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core/sim_time.h"
#include "partition/lp_graph.h"

namespace pf::partition {

// The links from one rank to another: the engine's per-channel lookahead.
struct ChannelLookahead {
  int from = 0;
  int to = 0;
  core::SimTime min_latency;
  std::int64_t links = 0;
};

struct PartitionReport {
  int ranks = 1;
  std::int64_t cut_links = 0;    // directed links whose two ends are on different ranks
  double cut_weight = 0;         // their summed link weight (bytes with traffic, else link count)
  double imbalance = 1;          // max rank load / mean rank load
  std::vector<double> rank_load; // expected events per rank
  core::SimTime lookahead = core::SimTime::infinity();  // min latency over cut links
  std::vector<ChannelLookahead> channels;               // sorted by (from, to)

  // ranks*ranks, row = sender, SimTime::infinity() where no link crosses:
  // the form core::EngineConfig::channel_lookahead takes.
  std::vector<core::SimTime> channel_matrix() const;
};

// Measures a mapping of g's LPs (vertex_rank: per LP).
PartitionReport make_report(const LpGraph& g, std::span<const int> vertex_rank, int ranks);

// One line: "ranks 4, cut 96 links (weight 96), imbalance 1.031, lookahead 1.100 us, 6 channels".
std::string summarize(const PartitionReport& report);

}  // namespace pf::partition
