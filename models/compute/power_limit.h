// The SM clock a power limit below the GPU's rated board power leaves.
//
// A hardware preset's gpu.sustained_clock is the clock the part holds under
// continuous tensor-core load at its rated power (gpu.tdp_w). A cluster that
// caps its GPUs lower (nvidia-smi -pl; torchtitan's H100s run at 500 of
// 700 W) pulls the clock further down. Under tensor-core load the board power
// is taken as a power law of the SM clock,
//
//   P ∝ f^k,  so  f(limit) / f(tdp) = (limit / tdp)^(1 / k),
//
// with k = gpu.clock_power_exponent. Its default, 3.3, is NVIDIA's own
// rating of one die at two powers: the H100 NVL (400 W) and the H100 SXM
// (700 W) both have 132 SMs, and their datasheets rate dense BF16 at 835 and
// 989.4 TFLOP/s, i.e. tensor-core clocks of 1,545 and 1,830 MHz:
// ln(700/400) / ln(1830/1545) = 3.30. It agrees with the textbook law for
// dynamic power, P ∝ f·V² with the voltage rising about linearly with the
// clock (k ≈ 3). HBM power does not scale with the SM clock, which a single
// exponent ignores (models/compute/README.md, "Power limit").
#pragma once

#include "models/spec/hardware_spec.h"

namespace pf::models {

// Multiplier of gpu.sustained_clock: 1 when no limit below the TDP is set.
double power_limit_clock_factor(const GpuSpec& gpu);

}  // namespace pf::models
