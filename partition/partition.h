// Who simulates what: every LP of an LpGraph (lp_graph.h) gets an MPI rank.
//
// A group (a server) is never split: it is contracted to one super-vertex
// first, so no edge inside it is ever cut and the lookahead is at least the
// shortest edge between groups. Then:
//   block        groups in contiguous runs, an equal count per rank;
//   round_robin  group n on rank n mod ranks;
//   replicas     groups in contiguous runs of equal count along the caller's
//                group order (LpGraph::group_order): ordered so that groups
//                doing the same work at the same moments (a server of every
//                data-parallel replica at one pipeline stage) spread over the
//                ranks, each window's work splits evenly; group number order
//                (block) without one;
//   metis        METIS over groups and free LPs together, vertex weight =
//                expected events, edge weight = expected traffic (k-way, with
//                recursive bisection as a fallback when it balances better;
//                see metis_partition.cpp).
// Under block, round_robin and replicas a free LP (a switch) goes to the rank that owns
// most of the LPs its toward_groups edges reach (leaves first, then spines,
// then cores, in LP order); ties rotate by placement_index so the spines of a
// split pod spread over the tied ranks.
//
// The mapping depends only on the graph, the rank count and the weights:
// every MPI rank computes the same one independently. The cluster's LP graph
// is built by models/network/lp_partition.h.
#pragma once

#include <vector>

#include "partition/lp_graph.h"
#include "partition/partition_report.h"
#include "partition/strategy.h"

namespace pf::partition {

struct RankMapping {
  int ranks = 1;
  Strategy strategy = Strategy::block;
  std::vector<int> vertex_rank;  // the owning rank of each LP
  PartitionReport report;

  int rank_of(LpIndex v) const { return vertex_rank[static_cast<std::size_t>(v)]; }
  std::vector<LpIndex> vertices_on(int rank) const;
};

// Throws pf::SimulationError for ranks < 1 or a malformed graph (check()).
RankMapping partition(const LpGraph& g, int ranks, Strategy strategy);

}  // namespace pf::partition
