// The k-d tree against brute force: same neighbours, same order, with and
// without an exclusion radius.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "models/compute/kd_tree.h"

namespace pf::models {
namespace {

std::vector<KdTree::Neighbour> brute_force(const std::vector<KdTree::Point>& pts, int dims, const KdTree::Point& q,
                                           int k, double exclude) {
  std::vector<std::pair<double, int>> all;
  for (int i = 0; i < static_cast<int>(pts.size()); ++i) {
    double d2 = 0;
    for (int d = 0; d < dims; ++d) d2 += (pts[i][d] - q[d]) * (pts[i][d] - q[d]);
    if (exclude < 0 || d2 > exclude * exclude) all.push_back({d2, i});
  }
  std::sort(all.begin(), all.end());
  std::vector<KdTree::Neighbour> out;
  for (int i = 0; i < std::min<int>(k, static_cast<int>(all.size())); ++i) out.push_back({std::sqrt(all[i].first), all[i].second});
  return out;
}

TEST(KdTree, MatchesBruteForce) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 16);
  for (int dims : {2, 4, 5}) {
    std::vector<KdTree::Point> pts(3000);
    for (auto& p : pts) {
      for (int d = 0; d < dims; ++d) p[d] = std::floor(u(rng) * 4) / 4;  // a lattice: many ties
    }
    const KdTree tree(pts, dims);
    for (int q = 0; q < 200; ++q) {
      KdTree::Point query{};
      for (int d = 0; d < dims; ++d) query[d] = u(rng);
      if (q % 3 == 0) query = pts[q];  // exact hits too
      for (double exclude : {-1.0, 0.0, 1.0, 3.0}) {
        std::array<KdTree::Neighbour, KdTree::kMaxNeighbours> got;
        const int n = tree.nearest(query, 8, exclude, got.data());
        const auto want = brute_force(pts, dims, query, 8, exclude);
        ASSERT_EQ(n, static_cast<int>(want.size()));
        for (int i = 0; i < n; ++i) {
          EXPECT_EQ(got[i].index, want[i].index) << "dims " << dims << " query " << q << " rank " << i;
          EXPECT_DOUBLE_EQ(got[i].distance, want[i].distance);
        }
      }
    }
  }
}

TEST(KdTree, SmallAndDegenerateTrees) {
  std::vector<KdTree::Point> same(40, KdTree::Point{1, 1});
  const KdTree tree(same, 2);
  std::array<KdTree::Neighbour, KdTree::kMaxNeighbours> out;
  EXPECT_EQ(tree.nearest({1, 1}, 8, -1, out.data()), 8);
  EXPECT_EQ(out[0].index, 0);  // ties go to the lower index
  EXPECT_EQ(tree.nearest({1, 1}, 8, 0.0, out.data()), 0);  // everything excluded
  const KdTree empty({}, 3);
  EXPECT_EQ(empty.nearest({0, 0, 0}, 4, -1, out.data()), 0);
}

}  // namespace
}  // namespace pf::models
