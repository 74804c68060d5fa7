// The cluster as the partitioner sees it: every vertex an LP, every server a
// group that is never split, every link an edge (partition/lp_graph.h), and
// the cluster's mapping of LPs to MPI ranks.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "models/network/topology.h"
#include "models/network/traffic_load.h"
#include "partition/lp_graph.h"
#include "partition/partition.h"

namespace pf::models::network {

// Expected events per vertex when the caller has no better estimate: one per
// outgoing link (a port is a queue whose events its owner executes), so a
// server weighs in proportion to its GPUs and NICs and a switch to its ports.
std::vector<double> default_vertex_events(const ClusterGraph& g);

// LP v = vertex v, edge l = link l. Servers are the groups; leaf, spine and
// core switches are free LPs (vertex order puts leaves, spines and cores in
// that order, as the partitioner's placement needs), placed by their index
// within their tier; downlinks are the toward_groups edges.
// traffic: GPU-to-GPU bytes, spread over links by routing (empty: every link
// weighs 1). vertex_events: per vertex (empty: default_vertex_events()).
// server_order: the servers in the order the replicas strategy blocks them
// (empty: by number; LpGraph::group_order).
// Throws pf::SimulationError for mis-sized weights, or (when partitioned) a
// server order that lists the servers other than once each.
partition::LpGraph lp_graph(const ClusterGraph& g, std::span<const GpuTraffic> traffic = {},
                            std::span<const double> vertex_events = {},
                            std::span<const std::int32_t> server_order = {});

// partition::partition(lp_graph(g, traffic, vertex_events, server_order), ranks, strategy).
partition::RankMapping partition_cluster(const ClusterGraph& g, int ranks, partition::Strategy strategy,
                                         std::span<const GpuTraffic> traffic = {},
                                         std::span<const double> vertex_events = {},
                                         std::span<const std::int32_t> server_order = {});

}  // namespace pf::models::network
