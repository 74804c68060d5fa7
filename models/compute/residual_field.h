// Interpolation in log space. Each measured kernel contributes its residual
//   r = ln(t_measured / t_anchor),   t_anchor = Roofline::ideal_seconds,
// the log of how much slower than the hardware's ideal it ran. A query's
// residual is the inverse-distance-weighted mean (weights 1/d^p) of its k
// nearest measured neighbours in log-shape space, and its prediction is
// t_anchor(query) · exp(r).
//
// Why this scheme (measured on the GH200 tables, random 80/20 split):
// - Interpolating the residual, not the time, keeps the roofline's exact
//   scaling between neighbours: two GEMMs 10% apart in K differ by 10% in
//   FLOPs, and only the (slowly varying) efficiency is interpolated.
// - k-NN with IDW copes with scattered, irregular shapes where a
//   piecewise-linear grid would need a full tensor product of M, N and K.
// - k = 8, p = 2 gave the lowest held-out error among k ∈ {1,4,8,16},
//   p ∈ {1,2,4} (GEMM: 4.2% at k = 1, 3.5% at k = 8; all within 0.2% of each
//   other from k = 4 on), so the choice is not delicate.
#pragma once

#include <vector>

#include "models/compute/kd_tree.h"

namespace pf::models {

class ResidualField {
 public:
  struct Prediction {
    double residual = 0;
    double nearest = 0;     // distance to the nearest neighbour used
    int neighbours = 0;     // 0: nothing found (empty table or all excluded)
  };

  // Distances at or below this (log2 units: a ratio of 1 + 7e-10) are the same shape.
  static constexpr double kSameShape = 1e-9;

  ResidualField() = default;
  ResidualField(std::vector<KdTree::Point> points, int dims, std::vector<double> residuals, int k, double power);

  // Neighbours within `exclude_within` are ignored (held-out validation);
  // pass a negative value for an ordinary query.
  Prediction predict(const KdTree::Point& query, double exclude_within) const;

  // Inside the per-axis [min, max] range of the measured points.
  bool inside_range(const KdTree::Point& query) const;

  int size() const { return tree_.size(); }
  const KdTree::Point& point(int index) const { return tree_.point(index); }
  double residual(int index) const { return residuals_[index]; }

 private:
  KdTree tree_;
  std::vector<double> residuals_;
  KdTree::Point low_{};
  KdTree::Point high_{};
  int k_ = 8;
  double power_ = 2;
};

}  // namespace pf::models
