// The partition strategies, each mapping super-vertices (servers and switches,
// see super_graph.h) to ranks. Internal to partition/: callers use partition().
#pragma once

#include <cstdint>
#include <vector>

#include "partition/cluster_graph.h"
#include "partition/super_graph.h"

namespace pf::partition {

// Servers in contiguous runs of equal count; switches by place_switches().
std::vector<int> block_ranks(const ClusterGraph& g, const SuperGraph& sg, int ranks);

// Server n on rank n mod ranks; switches by place_switches().
std::vector<int> round_robin_ranks(const ClusterGraph& g, const SuperGraph& sg, int ranks);

// Each switch on the rank owning most of its downlinks, tiers bottom-up; ties
// rotate by switch number. Servers must already be placed in super_rank.
void place_switches(const ClusterGraph& g, const SuperGraph& sg, int ranks, std::vector<int>& super_rank);

// METIS_PartGraphKway over the whole super graph with a fixed seed.
std::vector<int> metis_ranks(const SuperGraph& sg, int ranks);

}  // namespace pf::partition
