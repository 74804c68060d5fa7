// The shapes collectives run on: double binary trees, channel rings, groups.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/error.h"
#include "models/collective/double_binary_tree.h"
#include "models/collective/group.h"
#include "models/collective/ring_order.h"

namespace pf::models::collective {
namespace {

std::vector<int> child_counts(const std::vector<int>& parent) {
  std::vector<int> n(parent.size(), 0);
  for (int p : parent)
    if (p >= 0) ++n[static_cast<std::size_t>(p)];
  return n;
}

TEST(DoubleBinaryTree, EachTreeIsABinaryTreeOfLogarithmicDepth) {
  for (int m = 1; m <= 70; ++m) {
    for (const auto& parent : {binary_tree_parents(m), second_tree_parents(m)}) {
      ASSERT_EQ(static_cast<int>(parent.size()), m);
      EXPECT_EQ(std::count(parent.begin(), parent.end(), -1), 1) << "m=" << m;  // one root
      for (int c : child_counts(parent)) EXPECT_LE(c, 2) << "m=" << m;
      // Connected and acyclic: every position reaches the root within m steps.
      for (int p = 0; p < m; ++p) {
        int q = p, steps = 0;
        while (parent[static_cast<std::size_t>(q)] >= 0 && steps <= m) {
          q = parent[static_cast<std::size_t>(q)];
          ++steps;
        }
        EXPECT_LE(steps, m);
      }
      EXPECT_LE(tree_depth(parent), static_cast<int>(std::ceil(std::log2(std::max(m, 2)))) + 1) << "m=" << m;
    }
  }
}

TEST(DoubleBinaryTree, LeavesOfOneTreeAreInnerNodesOfTheOther) {
  for (int m = 2; m <= 64; m += 2) {
    const std::vector<int> a = child_counts(binary_tree_parents(m));
    const std::vector<int> b = child_counts(second_tree_parents(m));
    for (int p = 0; p < m; ++p)
      EXPECT_NE(a[static_cast<std::size_t>(p)] == 0, b[static_cast<std::size_t>(p)] == 0) << "m=" << m << " p=" << p;
  }
  for (int m = 3; m <= 63; m += 2) {  // odd: with the shift no position is a leaf of both trees
    const std::vector<int> a = child_counts(binary_tree_parents(m));
    const std::vector<int> b = child_counts(second_tree_parents(m));
    int both_leaf = 0;
    for (int p = 0; p < m; ++p) both_leaf += a[static_cast<std::size_t>(p)] == 0 && b[static_cast<std::size_t>(p)] == 0;
    EXPECT_EQ(both_leaf, 0) << "m=" << m;
  }
}

Group regular_group(int servers, int per_server, int gpus_per_node = 8) {
  std::vector<int> members;
  for (int s = 0; s < servers; ++s)
    for (int q = 0; q < per_server; ++q) members.push_back(s * gpus_per_node + q);
  return Group(members, gpus_per_node, 1024);
}

TEST(ChannelRing, EveryChannelIsOneCycleOverAllMembers) {
  for (const Group& g : {regular_group(4, 8), regular_group(3, 8), regular_group(1, 8), regular_group(5, 1),
                         Group({0, 1, 2, 9, 10, 17}, 8, 64)}) {
    for (int c = 0; c < 8; ++c) {
      std::set<int> seen;
      std::set<int> positions;
      int gpu = g.member(0);
      for (int i = 0; i < g.size(); ++i) {
        seen.insert(gpu);
        const RingSeat s = channel_ring(g, c, gpu);
        positions.insert(s.position);
        EXPECT_EQ(channel_ring(g, c, s.next).prev, gpu);
        gpu = s.next;
      }
      EXPECT_EQ(gpu, g.member(0)) << "the ring closes";
      EXPECT_EQ(static_cast<int>(seen.size()), g.size());
      EXPECT_EQ(static_cast<int>(positions.size()), g.size());
    }
  }
}

TEST(ChannelRing, HopsBetweenServersStayOnOneRail) {
  const Group g = regular_group(4, 8);  // even server count: the snake closes on a rail
  std::set<int> exits;
  for (int c = 0; c < 8; ++c) {
    for (int gpu : g.members()) {
      const int next = channel_ring(g, c, gpu).next;
      if (next / 8 != gpu / 8) {
        EXPECT_EQ(next % 8, gpu % 8) << "channel " << c << " GPU " << gpu;
        if (gpu / 8 == 0) exits.insert(gpu);
      }
    }
  }
  EXPECT_EQ(exits.size(), 8u) << "8 channels leave a server through 8 different GPUs (NICs)";
}

TEST(Group, PlacesMembersByServer) {
  const Group g({17, 0, 9, 1}, 8, 64);
  EXPECT_EQ(g.nodes(), 3);
  EXPECT_EQ(g.on_node(0), 2);
  EXPECT_EQ(g.gpu_at(0, 1), 1);
  EXPECT_EQ(g.gpu_at(2, 0), 17);
  EXPECT_EQ(g.member_index(9), 2);
  EXPECT_EQ(g.member_index(5), -1);
  EXPECT_FALSE(g.regular());
  EXPECT_TRUE(regular_group(4, 2).regular());
  EXPECT_FALSE(Group({0, 1, 8, 10}, 8, 64).regular());  // same count, different local GPUs
}

TEST(Group, RejectsDuplicatesAndStrangers) {
  EXPECT_THROW(Group({0, 1, 1}, 8, 64), SimulationError);
  EXPECT_THROW(Group({0, 64}, 8, 64), SimulationError);
  EXPECT_THROW(Group({}, 8, 64), SimulationError);
}

}  // namespace
}  // namespace pf::models::collective
