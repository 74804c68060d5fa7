// What the partitioner splits: a plain graph of logical processes. It knows
// nothing of GPUs, NICs or switches; models/network/lp_partition.h builds one
// from the cluster.
//
//   - Every LP has an expected event count (its weight).
//   - An LP may belong to a group (a server: its GPUs, NVSwitch and NICs); a
//     group is never split, so the edges inside it are never cut. Groups are
//     numbered 0..groups-1; an LP outside every group is free (group -1).
//   - Edges are directed, with a latency (the lookahead a cut edge allows)
//     and a weight (expected traffic, or 1 each). An edge marked `toward_groups`
//     leads from a free LP one step closer to the groups (a switch's downlink):
//     block and round_robin place each free LP, in LP order, on the rank that
//     owns most of the LPs its toward_groups edges reach, so free LPs must be
//     numbered so that those come first (leaves before spines before cores).
//   - `group_order`, optional, lists the groups in the order the `replicas`
//     strategy cuts into contiguous runs (a permutation of 0..groups-1).
//   - `placement_index` breaks ties among equally common ranks (rotating by
//     it) and places a free LP that has no such edge (index mod ranks).
#pragma once

#include <cstdint>
#include <vector>

#include "core/sim_time.h"

namespace pf::partition {

using LpIndex = std::int32_t;

struct LpEdge {
  LpIndex src = 0;
  LpIndex dst = 0;
  core::SimTime latency;
  double weight = 1;
  bool toward_groups = false;
};

struct LpGraph {
  int groups = 0;
  std::vector<std::int32_t> group;            // per LP: its group, -1 when free
  std::vector<std::int32_t> placement_index;  // per LP: used for free LPs only
  std::vector<double> events;                 // per LP: expected events
  std::vector<LpEdge> edges;                  // directed, in any fixed order
  std::vector<std::int32_t> out_offset;       // per LP + 1: LP v's out-edges are
  std::vector<std::int32_t> out_edges;        // out_edges[out_offset[v] .. out_offset[v+1]) (edge indices)
  std::vector<std::int32_t> group_order;      // empty, or every group once: the replicas strategy's order

  int lp_count() const { return static_cast<int>(group.size()); }
  int edge_count() const { return static_cast<int>(edges.size()); }
};

// Checks sizes and ranges (every per-LP vector has lp_count() entries, groups
// within [-1, groups), edge ends and out-edge lists consistent). Throws
// pf::SimulationError naming the first problem.
void check(const LpGraph& g);

}  // namespace pf::partition
