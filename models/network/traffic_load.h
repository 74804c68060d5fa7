// Expected bytes per link from a GPU-to-GPU traffic matrix: the edge weights
// a partitioner needs (DESIGN: partition/, "the rank graph as edge weights").
#pragma once

#include <span>
#include <vector>

#include "models/network/topology.h"

namespace pf::models::network {

// One entry of a traffic matrix: bytes sent from src_gpu to dst_gpu per
// iteration (or any consistent unit). Entries may repeat; they add up.
struct GpuTraffic {
  int src_gpu = 0;
  int dst_gpu = 0;
  double bytes = 0;
};

// Bytes crossing each link (indexed by link id). Under ECMP a pair's bytes are
// split evenly over its equal-cost paths (the expectation over flow hashes);
// under single_path they all follow the one path. Throws pf::SimulationError
// for a GPU index out of range or negative bytes.
std::vector<double> link_loads(const ClusterGraph& g, std::span<const GpuTraffic> traffic);

}  // namespace pf::models::network
