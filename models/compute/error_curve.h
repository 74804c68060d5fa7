// How wrong the calibrated estimator is, as a function of how far a query is
// from the nearest measured kernel: measured on the table itself by held-out
// prediction, so every table brings its own error bars.
//
// For each exclusion radius ρ (default 0, 0.5, 1, 2, 4 log2 units) a fixed,
// evenly strided sample of rows is predicted from the table with every row
// within ρ of it removed (ρ = 0 removes the row itself: leave-one-out). That
// yields, per radius, the mean nearest-neighbour distance actually used and
// the mean relative error |predicted - measured| / measured (a MAPE). The
// curve runs through those points, made non-decreasing (an estimate cannot get
// better by moving away from the data): flat below the first, linear between
// them, and continued with the last segment's slope beyond the last.
// CostEstimate::relative_uncertainty is its value at the query's distance. On
// the GH200 GEMM table the error grows from about 3.4% at ρ = 0 to about 29% at
// ρ = 4 (a factor 16 along one axis), against 75% for the plain roofline.
#pragma once

#include <vector>

#include "models/compute/residual_field.h"

namespace pf::models {

struct HoldoutBin {
  double radius = 0;         // exclusion radius
  double mean_distance = 0;  // mean nearest-neighbour distance actually used
  double mean_error = 0;     // mean relative error (MAPE as a fraction)
  int samples = 0;
};

struct ErrorCurve {
  std::vector<HoldoutBin> bins;   // one per radius, in the order given
  double validated_distance = 0;  // the largest radius with samples
  double fallback = 0;            // the answer when no bin has samples

  // Expected relative error at a distance (see above).
  double at(double distance) const;
};

// `fallback` is the answer when nothing could be validated (a one-row table):
// the plain roofline's error on the table is the honest one.
ErrorCurve measure_error_curve(const ResidualField& field, const std::vector<double>& radii, int samples_per_radius,
                               double fallback);

}  // namespace pf::models
