// A static k-d tree for k-nearest-neighbour queries in a few dimensions (the
// calibration tables' log-shape feature spaces have 2 to 5). Built once; a
// query allocates nothing and visits O(log n) leaves for clustered data.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace pf::models {

class KdTree {
 public:
  static constexpr int kMaxDims = 6;
  static constexpr int kMaxNeighbours = 32;
  using Point = std::array<double, kMaxDims>;

  struct Neighbour {
    double distance = 0;  // Euclidean
    int index = -1;       // into the points given to the constructor
  };

  KdTree() = default;
  KdTree(std::vector<Point> points, int dims);

  // Writes the up-to-k nearest points whose distance exceeds `exclude_within`
  // (pass a negative value to exclude nothing) to `out`, nearest first; ties
  // go to the lower index, so results are deterministic. Returns how many.
  int nearest(const Point& query, int k, double exclude_within, Neighbour* out) const;

  int size() const { return static_cast<int>(points_.size()); }
  int dims() const { return dims_; }
  const Point& point(int index) const { return points_[order_[index]]; }

 private:
  struct Node {
    int begin = 0, end = 0;  // range of leaf-ordered positions below this node
    int left = -1, right = -1;
    int split_dim = 0;
    double split = 0;
    Point low{}, high{};     // bounding box of those points
  };
  struct Best;

  int build(int begin, int end);
  void search(int node, const Point& query, double exclude2, Best& best) const;
  double min_distance2(const Node& node, const Point& query) const;
  double max_distance2(const Node& node, const Point& query) const;

  std::vector<Point> points_;   // reordered so each leaf's points are contiguous
  std::vector<int> order_;      // original index -> position in points_
  std::vector<int> original_;   // position in points_ -> original index
  std::vector<Node> nodes_;
  int dims_ = 0;
};

}  // namespace pf::models
