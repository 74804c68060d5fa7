#include "models/uncertainty/linear_band.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "models/uncertainty/latin_hypercube.h"

namespace pf::models::uncertainty {
namespace {

// The step's change when the prior's parameter is at multiplier m (its value
// clipped to the physical limits first); none for a parameter the run's
// totals cannot price.
std::optional<double> step_change(const Prior& p, double m, const StepShares& s) {
  const double v = p.value(m) / p.nominal;  // the multiplier after clipping
  const std::string_view key = p.parameter->key;
  if (key == "hardware.gpu.efficiency.gemm") return s.gemm * (1 / v - 1);
  if (key == "hardware.gpu.sustained_clock") return (s.gemm + s.attention) * (1 / v - 1);
  if (key == "hardware.gpu.efficiency.attention" || key == "hardware.gpu.efficiency.attention_flash2" ||
      key == "hardware.gpu.efficiency.attention_flash_triton")
    return s.attention * (1 / v - 1);
  if (key == "hardware.gpu.efficiency.elementwise") return s.memory_bound * (1 / v - 1);
  if (key == "hardware.gpu.efficiency.overlap_slowdown")
    return std::max(0.0, s.collective_total - s.collective_exposed) * (v - 1);
  if (key == "training.host_overhead_us") return s.host_bound * (v - 1);
  // The kernels carry F = 1 + hypot(part, fluctuation); one sigma times v
  // scales its own term (without fluctuation: 1 + v (F - 1)).
  if (key == "hardware.gpu.speed_spread" || key == "hardware.gpu.speed_fluctuation") {
    const bool spread = key == "hardware.gpu.speed_spread";
    const double f = 1 + std::hypot(s.part_spread, s.lockstep_fluctuation);
    const double moved = 1 + std::hypot(s.part_spread * (spread ? v : 1), s.lockstep_fluctuation * (spread ? 1 : v));
    return (s.gemm + s.attention + s.memory_bound) * (moved / f - 1);
  }
  return std::nullopt;
}

}  // namespace

double prior_quantile(const Prior& p, double q) { return triangular_multiplier(q, p.low, p.high); }

LinearBand linear_band(const std::vector<Prior>& priors, const StepShares& s, const ModelError* model_error) {
  double down = 0, up = 0;
  LinearBand band;
  const auto add = [&](double a, double b) {
    const double lo = std::min({a, b, 0.0}), hi = std::max({a, b, 0.0});
    down += lo * lo;
    up += hi * hi;
  };
  for (const Prior& p : priors) {
    const auto a = step_change(p, prior_quantile(p, 0.1), s);
    const auto b = step_change(p, prior_quantile(p, 0.9), s);
    if (!a || !b) continue;
    band.covers.emplace_back(p.parameter->key);
    add(*a, *b);
  }
  if (model_error != nullptr) {
    band.covers.emplace_back("model_error");
    add(s.step * (model_error->multiplier(0.1) - 1), s.step * (model_error->multiplier(0.9) - 1));
  }
  band.low = std::max(0.0, s.step - std::sqrt(down));
  band.high = s.step + std::sqrt(up);
  return band;
}

}  // namespace pf::models::uncertainty
