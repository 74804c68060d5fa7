#include "models/compute/error_curve.h"

#include <algorithm>
#include <cmath>

namespace pf::models {
namespace {

HoldoutBin validate_radius(const ResidualField& field, double radius, int samples) {
  HoldoutBin bin;
  bin.radius = radius;
  const int n = field.size();
  for (int s = 0; s < samples; ++s) {
    // Evenly strided rows: deterministic, and spread over the whole table.
    const int row = static_cast<int>(static_cast<long long>(s) * n / samples);
    const auto p = field.predict(field.point(row), radius);
    if (p.neighbours == 0) continue;
    bin.mean_distance += p.nearest;
    bin.mean_error += std::abs(std::expm1(p.residual - field.residual(row)));
    ++bin.samples;
  }
  if (bin.samples > 0) {
    bin.mean_distance /= bin.samples;
    bin.mean_error /= bin.samples;
  }
  return bin;
}

}  // namespace

double ErrorCurve::at(double distance) const {
  // The validated points, by distance, with errors made non-decreasing.
  double prev_d = 0, prev_e = 0, slope = 0;
  bool any = false;
  for (const HoldoutBin& bin : bins) {
    if (bin.samples == 0) continue;
    const double e = any ? std::max(prev_e, bin.mean_error) : bin.mean_error;
    if (!any && distance <= bin.mean_distance) return e;
    if (any && distance <= bin.mean_distance) {
      const double span = bin.mean_distance - prev_d;
      return span > 0 ? prev_e + (e - prev_e) * (distance - prev_d) / span : e;
    }
    if (any) slope = bin.mean_distance > prev_d ? (e - prev_e) / (bin.mean_distance - prev_d) : slope;
    prev_d = bin.mean_distance;
    prev_e = e;
    any = true;
  }
  return any ? prev_e + slope * (distance - prev_d) : fallback;
}

ErrorCurve measure_error_curve(const ResidualField& field, const std::vector<double>& radii, int samples_per_radius,
                               double fallback) {
  ErrorCurve curve;
  curve.fallback = fallback;
  const int samples = std::min(field.size(), std::max(samples_per_radius, 1));
  std::vector<double> sorted = radii;
  std::sort(sorted.begin(), sorted.end());
  for (const double radius : sorted) {
    curve.bins.push_back(validate_radius(field, radius, samples));
    if (curve.bins.back().samples > 0) curve.validated_distance = radius;
  }
  return curve;
}

}  // namespace pf::models
