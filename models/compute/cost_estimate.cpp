#include "models/compute/cost_estimate.h"

#include <algorithm>

namespace pf::models {

const char* to_string(CostBasis basis) {
  switch (basis) {
    case CostBasis::calibrated: return "calibrated";
    case CostBasis::interpolated: return "interpolated";
    case CostBasis::extrapolated: return "extrapolated";
    case CostBasis::roofline_only: return "roofline_only";
  }
  return "?";
}

CostEstimate combine_sequential(const CostEstimate& a, const CostEstimate& b) {
  CostEstimate sum;
  sum.seconds = a.seconds + b.seconds;
  // The enumerators are ordered from most to least trustworthy.
  sum.basis = std::max(a.basis, b.basis);
  sum.extrapolation = std::max(a.extrapolation, b.extrapolation);
  sum.relative_uncertainty =
      sum.seconds > 0
          ? (a.seconds * a.relative_uncertainty + b.seconds * b.relative_uncertainty) / sum.seconds
          : std::max(a.relative_uncertainty, b.relative_uncertainty);
  return sum;
}

}  // namespace pf::models
