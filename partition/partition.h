// Who simulates what: every vertex of the cluster graph (GPUs, NVSwitches,
// NICs and switches are all LPs) gets an MPI rank.
//
// A server (its GPUs, NVSwitch and NICs) is never split: it is contracted to
// one super-vertex first, so no intra-node link is ever cut and the lookahead
// is at least the shortest inter-node link latency. Then:
//   block        servers in contiguous runs, an equal count per rank;
//   round_robin  server n on rank n mod ranks;
//   metis        METIS over servers and switches together, vertex weight =
//                expected events, edge weight = expected traffic (k-way, with
//                recursive bisection as a fallback when it balances better;
//                see metis_partition.cpp).
// Under block and round_robin a switch goes to the rank that owns most of its
// downlinks (leaves first, then spines, then cores); ties rotate by switch
// number so the spines of a split pod spread over the tied ranks.
//
// The mapping depends only on the graph, the rank count and the weights:
// every MPI rank computes the same one independently.
#pragma once

#include <span>
#include <vector>

#include "models/spec/simulation_spec.h"
#include "partition/cluster_graph.h"
#include "partition/partition_report.h"
#include "partition/traffic_load.h"

namespace pf::partition {

using Strategy = models::PartitionStrategy;
const char* to_string(Strategy strategy);

struct RankMapping {
  int ranks = 1;
  Strategy strategy = Strategy::block;
  std::vector<int> vertex_rank;  // the owning rank of each vertex (LP)
  PartitionReport report;

  int rank_of(VertexId v) const { return vertex_rank[static_cast<std::size_t>(v)]; }
  std::vector<VertexId> vertices_on(int rank) const;
};

// Expected events per vertex when the caller has no better estimate: one per
// outgoing link (a port is a queue whose events its owner executes), so a
// server weighs in proportion to its GPUs and NICs and a switch to its ports.
std::vector<double> default_vertex_events(const ClusterGraph& g);

// traffic: GPU-to-GPU bytes (empty: every link weighs the same).
// vertex_events: per vertex (empty: default_vertex_events()).
// Throws pf::SimulationError for ranks < 1 or mis-sized weights.
RankMapping partition(const ClusterGraph& g, int ranks, Strategy strategy, std::span<const GpuTraffic> traffic = {},
                      std::span<const double> vertex_events = {});

}  // namespace pf::partition
