#include "models/compute/kd_tree.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "core/error.h"

namespace pf::models {
namespace {

constexpr int kLeafSize = 12;

}  // namespace

// The k best so far, sorted by (distance², index): insertion into a short
// fixed array is faster than a heap for k ≤ 32 and needs no allocation.
struct KdTree::Best {
  int k = 0;
  int count = 0;
  std::array<double, kMaxNeighbours> d2{};
  std::array<int, kMaxNeighbours> index{};

  double worst() const { return count < k ? std::numeric_limits<double>::infinity() : d2[count - 1]; }

  void offer(double dist2, int idx) {
    if (count == k && (dist2 > d2[count - 1] || (dist2 == d2[count - 1] && idx > index[count - 1]))) return;
    int pos = count < k ? count++ : count - 1;
    while (pos > 0 && (d2[pos - 1] > dist2 || (d2[pos - 1] == dist2 && index[pos - 1] > idx))) {
      d2[pos] = d2[pos - 1];
      index[pos] = index[pos - 1];
      --pos;
    }
    d2[pos] = dist2;
    index[pos] = idx;
  }
};

KdTree::KdTree(std::vector<Point> points, int dims) : dims_(dims) {
  if (dims < 1 || dims > kMaxDims) throw SimulationError("KdTree: expected 1.." + std::to_string(kMaxDims) + " dims");
  original_.resize(points.size());
  std::iota(original_.begin(), original_.end(), 0);
  points_ = std::move(points);
  if (!points_.empty()) build(0, static_cast<int>(points_.size()));
  // Store points in leaf order so a leaf scan walks contiguous memory.
  std::vector<Point> reordered(points_.size());
  order_.assign(points_.size(), 0);
  for (std::size_t pos = 0; pos < original_.size(); ++pos) {
    reordered[pos] = points_[original_[pos]];
    order_[original_[pos]] = static_cast<int>(pos);
  }
  points_ = std::move(reordered);
}

int KdTree::build(int begin, int end) {
  const int id = static_cast<int>(nodes_.size());
  Node node;
  node.begin = begin;
  node.end = end;
  node.low = node.high = points_[original_[begin]];
  for (int i = begin; i < end; ++i) {
    for (int d = 0; d < dims_; ++d) {
      node.low[d] = std::min(node.low[d], points_[original_[i]][d]);
      node.high[d] = std::max(node.high[d], points_[original_[i]][d]);
    }
  }
  nodes_.push_back(node);
  if (end - begin <= kLeafSize) return id;
  // Split the widest dimension at its median.
  int best_dim = 0;
  for (int d = 1; d < dims_; ++d) {
    if (node.high[d] - node.low[d] > node.high[best_dim] - node.low[best_dim]) best_dim = d;
  }
  if (node.high[best_dim] <= node.low[best_dim]) return id;  // all points identical: keep one leaf
  const int mid = begin + (end - begin) / 2;
  std::nth_element(original_.begin() + begin, original_.begin() + mid, original_.begin() + end, [&](int a, int b) {
    const double pa = points_[a][best_dim], pb = points_[b][best_dim];
    return pa < pb || (pa == pb && a < b);
  });
  const double split = points_[original_[mid]][best_dim];
  const int left = build(begin, mid);
  const int right = build(mid, end);
  nodes_[id].left = left;
  nodes_[id].right = right;
  nodes_[id].split_dim = best_dim;
  nodes_[id].split = split;
  return id;
}

double KdTree::min_distance2(const Node& node, const Point& query) const {
  double d2 = 0;
  for (int d = 0; d < dims_; ++d) {
    const double gap = std::max({node.low[d] - query[d], query[d] - node.high[d], 0.0});
    d2 += gap * gap;
  }
  return d2;
}

double KdTree::max_distance2(const Node& node, const Point& query) const {
  double d2 = 0;
  for (int d = 0; d < dims_; ++d) {
    const double far = std::max(query[d] - node.low[d], node.high[d] - query[d]);
    d2 += far * far;
  }
  return d2;
}

void KdTree::search(int node_id, const Point& query, double exclude2, Best& best) const {
  const Node& node = nodes_[node_id];
  // Held-out queries exclude a ball around the query: skip boxes inside it.
  if (max_distance2(node, query) <= exclude2) return;
  if (node.left < 0) {
    for (int pos = node.begin; pos < node.end; ++pos) {
      double d2 = 0;
      for (int d = 0; d < dims_; ++d) {
        const double diff = points_[pos][d] - query[d];
        d2 += diff * diff;
      }
      if (d2 > exclude2) best.offer(d2, original_[pos]);
    }
    return;
  }
  // Nearer box first; the other only if it could still hold a better point.
  const bool left_first = query[node.split_dim] < node.split;
  const int near = left_first ? node.left : node.right;
  const int far = left_first ? node.right : node.left;
  search(near, query, exclude2, best);
  if (min_distance2(nodes_[far], query) <= best.worst()) search(far, query, exclude2, best);
}

int KdTree::nearest(const Point& query, int k, double exclude_within, Neighbour* out) const {
  if (points_.empty() || k <= 0) return 0;
  Best best;
  best.k = std::min({k, kMaxNeighbours, size()});
  const double exclude2 = exclude_within < 0 ? -1.0 : exclude_within * exclude_within;
  search(0, query, exclude2, best);
  for (int i = 0; i < best.count; ++i) out[i] = {std::sqrt(best.d2[i]), best.index[i]};
  return best.count;
}

}  // namespace pf::models
