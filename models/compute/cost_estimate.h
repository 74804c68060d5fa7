// What the cost model answers for one op: its duration and how far to trust it.
// `relative_uncertainty` is the estimator's own error at this query (a measured
// table's error curve, or a fixed figure for the roofline); the report's band
// comes from the priors instead (models/uncertainty/README.md) and keeps only
// `basis`, which says where the durations came from, with `extrapolation`.
#pragma once

#include <cstdint>

namespace pf::models {

enum class CostBasis : std::uint8_t {
  calibrated,     // the exact shape was measured: the measurement is returned
  interpolated,   // between measured shapes, inside the table's range
  extrapolated,   // outside the table's range or a variant it did not measure;
                  // blended toward the roofline as the distance grows
  roofline_only,  // no table covers this op class: plain roofline
};

struct CostEstimate {
  double seconds = 0;
  CostBasis basis = CostBasis::roofline_only;
  // Distance to the nearest measured point in the table's feature space (log2
  // units: 1 = a factor of two along one axis, see CALIBRATION.md); 0 for an
  // exact hit and for roofline_only.
  double extrapolation = 0;
  // Expected relative error |predicted - actual| / actual, as measured by
  // held-out validation on the table at this distance (CALIBRATION.md).
  double relative_uncertainty = 0;
};

const char* to_string(CostBasis basis);

// Two kernels run back to back (a backward GEMM's dgrad and wgrad): times add,
// the weaker basis and the larger distance win, and the relative uncertainty is
// the time-weighted mean (errors assumed fully correlated: the conservative choice).
CostEstimate combine_sequential(const CostEstimate& a, const CostEstimate& b);

}  // namespace pf::models
