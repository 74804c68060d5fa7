// The partition strategies, each mapping super-vertices (groups and free LPs,
// see super_graph.h) to ranks. Internal to partition/: callers use partition().
#pragma once

#include <cstdint>
#include <vector>

#include "partition/lp_graph.h"
#include "partition/super_graph.h"

namespace pf::partition {

// Groups in contiguous runs of equal count; free LPs by place_free_lps().
std::vector<int> block_ranks(const LpGraph& g, const SuperGraph& sg, int ranks);

// Group n on rank n mod ranks; free LPs by place_free_lps().
std::vector<int> round_robin_ranks(const LpGraph& g, const SuperGraph& sg, int ranks);

// Groups in contiguous runs of equal count along g.group_order (group number
// order when it is empty); free LPs by place_free_lps().
std::vector<int> ordered_block_ranks(const LpGraph& g, const SuperGraph& sg, int ranks);

// Each free LP, in LP order, on the rank owning most of the LPs its
// toward_groups edges reach; ties rotate by placement_index. Groups must
// already be placed in super_rank.
void place_free_lps(const LpGraph& g, const SuperGraph& sg, int ranks, std::vector<int>& super_rank);

// METIS_PartGraphKway over the whole super graph with a fixed seed.
std::vector<int> metis_ranks(const SuperGraph& sg, int ranks);

}  // namespace pf::partition
