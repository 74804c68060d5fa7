#include "models/training/gpu_conditions.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/mix64.h"

namespace pf::models::training {
namespace {

// A uniform draw in (0, 1] from 53 of the bits.
double unit(std::uint64_t bits) { return static_cast<double>((bits >> 11) + 1) * 0x1.0p-53; }

// A standard normal draw (Box-Muller) from two hashed uniforms.
double standard_normal(std::uint64_t key) {
  const double u1 = unit(core::mix64(key));
  const double u2 = unit(core::mix64(key ^ 0x5851f42d4c957f2dULL));
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}


}  // namespace

double jitter_factor(const JitterSpec& j, int gpu, std::uint32_t op) {
  if (j.sigma <= 0) return 1.0;
  const std::uint64_t key = core::mix64(j.seed ^ core::mix64((static_cast<std::uint64_t>(static_cast<std::uint32_t>(gpu)) << 32) | op));
  const double z = standard_normal(key);
  if (j.distribution == JitterDistribution::normal) return std::max(0.05, 1.0 + j.sigma * z);
  return std::exp(j.sigma * z - 0.5 * j.sigma * j.sigma);  // lognormal with mean 1
}

double GpuConditions::jitter(const Condition& c, int gpu, std::uint32_t op) { return jitter_factor(c.jitter, gpu, op); }

GpuConditions::GpuConditions(const ExperimentSpec& e) {
  pricers_.push_back(std::make_unique<OpPricer>(e));
  bool any = false;
  for (const FaultSpec& f : e.faults) any = any || f.target == FaultTarget::gpus;
  if (!any) return;
  // One pricer per fault with replacement hardware, in fault order.
  std::vector<std::uint16_t> pricer_of_fault(e.faults.size(), 0);
  for (std::size_t i = 0; i < e.faults.size(); ++i) {
    if (!e.faults[i].hardware) continue;
    ExperimentSpec other = e;
    other.hardware.gpu = e.faults[i].hardware->gpu;
    pricer_of_fault[i] = static_cast<std::uint16_t>(pricers_.size());
    pricers_.push_back(std::make_unique<OpPricer>(other));
  }
  for (const GpuFaultFigures& g : gpu_fault_figures(e.faults, e.gpu_count())) {
    Condition c;
    c.slowdown = g.compute_slowdown;
    c.jitter = g.jitter;
    if (g.hardware_fault >= 0) c.pricer = pricer_of_fault[static_cast<std::size_t>(g.hardware_fault)];
    per_gpu_.push_back(c);
  }
}

}  // namespace pf::models::training
