#include "models/compute/calibrated_estimator.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/error.h"
#include "models/compute/kernel_features.h"

namespace pf::models {

CalibratedEstimator::CalibratedEstimator(const CalibrationTable& table, const Roofline& roofline,
                                         const EstimatorOptions& options)
    : roofline_(roofline),
      kind_(table.kind),
      dtype_(table.dtype),
      attention_kernel_(table.attention_kernel),
      source_(table.source),
      options_(options) {
  if (table.rows.empty()) throw ConfigError(table.source + ": expected at least one measured row, found none");
  std::vector<KdTree::Point> points;
  std::vector<double> residuals;
  points.reserve(table.rows.size());
  residuals.reserve(table.rows.size());
  double roofline_error_sum = 0;
  for (const Measurement& m : table.rows) {
    points.push_back(shape_features(kind_, m.op, options_.alignment_weight));
    residuals.push_back(std::log(m.seconds / roofline_.ideal_seconds(m.op)));
    roofline_error_sum += std::abs(roofline_.seconds(m.op) - m.seconds) / m.seconds;
  }
  roofline_error_ = roofline_error_sum / static_cast<double>(table.rows.size());
  field_ = ResidualField(std::move(points), feature_dims(kind_), std::move(residuals), options_.neighbours,
                         options_.idw_power);
  curve_ = measure_error_curve(field_, options_.holdout_radii, options_.holdout_samples, roofline_error_);
}

double CalibratedEstimator::calibrated_weight(double distance) const {
  const double trusted = curve_.validated_distance;
  const double gone = options_.fade_factor * trusted;
  if (distance <= trusted) return 1.0;
  if (distance >= gone) return 0.0;
  return (gone - distance) / (gone - trusted);
}

CostEstimate CalibratedEstimator::estimate(const ComputeOp& op) const {
  KernelTableKind kind;
  if (!table_kind_for(op.cls, &kind) || kind != kind_) {
    throw SimulationError(std::string("calibrated estimator: a ") + to_string(kind_) + " table cannot price a " +
                          to_string(op.cls) + " op");
  }
  // Another flash kernel than the table's is a variant the table did not
  // measure: at least one doubling away, as other kind differences.
  // It runs at the ratio of the two kernels' efficiencies.
  const bool other_kernel = kind_ == KernelTableKind::attention && op.attn.kernel != attention_kernel_;
  const double kernel_ratio = other_kernel ? roofline_.attention_efficiency(attention_kernel_) /
                                                 roofline_.attention_efficiency(op.attn.kernel)
                                           : 1.0;
  const double kernel_part = other_kernel ? std::max(1.0, std::abs(std::log2(kernel_ratio))) : 0.0;
  // Attention tables time the forward; the backward's 2.5x FLOPs run at
  // efficiency.attention_backward of its rate (the variant distance already
  // counts the pass difference).
  const double ratio = op.cls == OpClass::attention_backward
                           ? kernel_ratio / roofline_.attention_backward_ratio()
                           : kernel_ratio;
  const double variant = std::hypot(variant_distance(kind_, op, dtype_, roofline_), kernel_part);
  const KdTree::Point query = shape_features(kind_, op, options_.alignment_weight);
  const auto p = field_.predict(query, -1.0);
  CostEstimate e;
  e.extrapolation = std::hypot(p.nearest, variant);
  if (e.extrapolation <= ResidualField::kSameShape) {
    e.basis = CostBasis::calibrated;
    e.extrapolation = 0;
  } else if (variant == 0 && field_.inside_range(query) && e.extrapolation <= curve_.validated_distance) {
    e.basis = CostBasis::interpolated;
  } else {
    e.basis = CostBasis::extrapolated;
  }
  const double w = calibrated_weight(e.extrapolation);
  const double calibrated = w > 0 ? roofline_.ideal_seconds(op) * std::exp(p.residual) * ratio : 0.0;
  const double roofline = w < 1 ? roofline_.seconds(op) : 0.0;
  if (w == 1.0) {
    e.seconds = calibrated;
  } else if (w == 0.0) {
    e.seconds = roofline;
  } else {
    e.seconds = std::exp(w * std::log(calibrated) + (1 - w) * std::log(roofline));
  }
  e.relative_uncertainty = w * curve_.at(e.extrapolation) + (1 - w) * roofline_error_;
  return e;
}

}  // namespace pf::models
