// Prices ops of one kernel family from one measured table (CALIBRATION.md).
//
//   d  = distance from the query to the nearest measured point: shape
//        coordinates plus variant coordinates (kernel_features.h)
//   t_cal  = t_anchor(query) · exp(IDW residual of the k nearest) (residual_field.h)
//   t_roof = the plain roofline (roofline.h)
//
//   d = 0                 → calibrated: the measurement itself
//   d ≤ D, in range       → interpolated: t_cal
//   otherwise             → extrapolated: t_cal while d ≤ D, then blended
//                           geometrically toward t_roof, reaching it at
//                           fade_factor·D and staying there
//
// D is the largest held-out radius the error curve validated (4 by default: a
// factor of 16 along one axis). Past what validation covered, the roofline,
// whose error on this table is known, is the safer answer. The relative
// uncertainty is blended with the same weight between the error curve at d
// and the roofline's mean relative error on the table.
#pragma once

#include <string>
#include <vector>

#include "models/compute/calibration_table.h"
#include "models/compute/cost_estimate.h"
#include "models/compute/error_curve.h"
#include "models/compute/residual_field.h"
#include "models/compute/roofline.h"

namespace pf::models {

struct EstimatorOptions {
  int neighbours = 8;                // k of the k-NN
  double idw_power = 2.0;            // p of the 1/d^p weights
  double alignment_weight = 2.0;     // w of the GEMM alignment coordinate
  std::vector<double> holdout_radii = {0.0, 0.5, 1.0, 2.0, 4.0};
  int holdout_samples = 400;         // rows predicted per radius
  double fade_factor = 2.0;          // roofline reached at fade_factor·D
};

class CalibratedEstimator {
 public:
  CalibratedEstimator(const CalibrationTable& table, const Roofline& roofline, const EstimatorOptions& options = {});

  // `op` must be of a class this table's kind prices (table_kind_for).
  CostEstimate estimate(const ComputeOp& op) const;

  KernelTableKind kind() const { return kind_; }
  Dtype dtype() const { return dtype_; }
  const std::string& source() const { return source_; }
  const ErrorCurve& error_curve() const { return curve_; }
  // Mean relative error of the plain roofline over the table's rows.
  double roofline_error() const { return roofline_error_; }

 private:
  // Weight of the calibrated estimate at distance d: 1 up to D, 0 from fade_factor·D.
  double calibrated_weight(double distance) const;

  Roofline roofline_;
  KernelTableKind kind_;
  Dtype dtype_;
  FlashKernel attention_kernel_;
  std::string source_;
  EstimatorOptions options_;
  ResidualField field_;
  ErrorCurve curve_;
  double roofline_error_ = 0;
};

}  // namespace pf::models
