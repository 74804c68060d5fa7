// The LP graph with every group contracted to one super-vertex: what the
// partitioners actually split, so that no edge inside a group can be cut.
//
// Super-vertex ids: groups first (super n = group n), then each free LP in
// LP order. Edges are undirected (METIS wants a symmetric adjacency) and
// carry the summed weight of every directed edge between the two ends, in
// either direction.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "partition/lp_graph.h"

namespace pf::partition {

struct SuperGraph {
  int supers = 0;
  int servers = 0;                        // supers [0, servers) are the groups (servers)
  std::vector<std::int32_t> super_of;     // per LP
  std::vector<double> weight;             // per super: summed vertex events
  std::vector<std::int32_t> xadj;         // CSR offsets, supers + 1
  std::vector<std::int32_t> adjncy;       // neighbour supers
  std::vector<double> adjwgt;             // summed link weight per neighbour entry
};

SuperGraph contract(const LpGraph& g);

}  // namespace pf::partition
