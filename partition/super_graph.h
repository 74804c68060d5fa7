// The cluster with every server contracted to one super-vertex: what the
// partitioners actually split, so that no intra-node link can be cut.
//
// Super-vertex ids: servers first (super n = server n), then each network
// switch in vertex order. Edges are undirected (METIS wants a symmetric
// adjacency) and carry the summed weight of every directed link between the
// two ends, in either direction.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "partition/cluster_graph.h"

namespace pf::partition {

struct SuperGraph {
  int supers = 0;
  int servers = 0;                        // supers [0, servers) are servers
  std::vector<std::int32_t> super_of;     // per cluster vertex
  std::vector<double> weight;             // per super: summed vertex events
  std::vector<std::int32_t> xadj;         // CSR offsets, supers + 1
  std::vector<std::int32_t> adjncy;       // neighbour supers
  std::vector<double> adjwgt;             // summed link weight per neighbour entry
};

SuperGraph contract(const ClusterGraph& g, std::span<const double> vertex_events,
                    std::span<const double> link_weight);

}  // namespace pf::partition
