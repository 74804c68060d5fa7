#include "models/compute/power_limit.h"

#include <cmath>

namespace pf::models {

double power_limit_clock_factor(const GpuSpec& gpu) {
  // The parser rejects a limit above the TDP or without one; a spec built in
  // code that does either runs at the rated clock.
  if (gpu.power_limit_w <= 0 || gpu.tdp_w <= 0 || gpu.power_limit_w >= gpu.tdp_w) return 1.0;
  if (gpu.clock_power_exponent <= 0) return 1.0;
  return std::pow(gpu.power_limit_w / gpu.tdp_w, 1.0 / gpu.clock_power_exponent);
}

}  // namespace pf::models
