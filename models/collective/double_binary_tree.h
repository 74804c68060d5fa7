// NCCL's double binary tree over m servers (Sanders, Speck & Traeff, "Two-tree
// algorithms for full bandwidth broadcast, reduction and scan", Parallel
// Computing 2009; adopted by NCCL 2.4, NVIDIA developer blog "Massively Scale
// Your Deep Learning Training with NCCL 2.4", 2019).
//
// Tree 0 is an in-order binary tree read off the bits of the position: a
// position p > 0 with lowest set bit b hangs under p + b when bit 2b of p is
// clear and p + b exists, else under p - b; position 0 is the root. Every odd
// position is then a leaf and every even one (but the root) has a child, so
// the second tree, the first mirrored (p -> m-1-p, m even) or shifted
// (p -> p+1 mod m, m odd), makes each tree-0 leaf an inner node and the other
// way round: each server sends and receives about the same bytes over the two
// trees, which is what lets the pair reach full bandwidth.
#pragma once

#include <vector>

namespace pf::models::collective {

// parent[p] for p in [0, m); -1 at the root. m >= 1.
std::vector<int> binary_tree_parents(int m);
// The complementary second tree, same convention.
std::vector<int> second_tree_parents(int m);
// Edges from the root to the deepest position.
int tree_depth(const std::vector<int>& parent);

}  // namespace pf::models::collective
