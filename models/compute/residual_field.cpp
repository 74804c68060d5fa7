#include "models/compute/residual_field.h"

#include <algorithm>
#include <cmath>

namespace pf::models {
ResidualField::ResidualField(std::vector<KdTree::Point> points, int dims, std::vector<double> residuals, int k,
                             double power)
    : residuals_(std::move(residuals)), k_(std::clamp(k, 1, KdTree::kMaxNeighbours)), power_(power) {
  low_.fill(0);
  high_.fill(0);
  if (!points.empty()) {
    low_ = high_ = points.front();
    for (const auto& p : points) {
      for (int d = 0; d < dims; ++d) {
        low_[d] = std::min(low_[d], p[d]);
        high_[d] = std::max(high_[d], p[d]);
      }
    }
  }
  tree_ = KdTree(std::move(points), dims);
}

ResidualField::Prediction ResidualField::predict(const KdTree::Point& query, double exclude_within) const {
  std::array<KdTree::Neighbour, KdTree::kMaxNeighbours> nb;
  const int n = tree_.nearest(query, k_, exclude_within, nb.data());
  Prediction p;
  p.neighbours = n;
  if (n == 0) return p;
  p.nearest = nb[0].distance;
  double sum_w = 0, sum_wr = 0;
  if (p.nearest <= kSameShape) {
    // Measured exactly: average the duplicates, ignore everything else.
    for (int i = 0; i < n && nb[i].distance <= kSameShape; ++i) sum_w += 1, sum_wr += residuals_[nb[i].index];
  } else {
    for (int i = 0; i < n; ++i) {
      const double w = std::pow(nb[i].distance, -power_);
      sum_w += w;
      sum_wr += w * residuals_[nb[i].index];
    }
  }
  p.residual = sum_wr / sum_w;
  return p;
}

bool ResidualField::inside_range(const KdTree::Point& query) const {
  for (int d = 0; d < tree_.dims(); ++d) {
    if (query[d] < low_[d] || query[d] > high_[d]) return false;
  }
  return true;
}

}  // namespace pf::models
