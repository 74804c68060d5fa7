// A power limit below the TDP lowers the SM clock as (limit / tdp)^(1/k):
// the factor reproduces the datasheet pair it is taken from, leaves a GPU at
// (or without) a limit untouched, slows compute-bound kernels only, and never
// speeds a kernel up as the limit falls.
#include <gtest/gtest.h>

#include <cmath>

#include "gh200.h"
#include "models/compute/power_limit.h"
#include "models/compute/roofline.h"

namespace pf::models {
namespace {

using test::gh200;

GpuSpec rated(double tdp_w, double limit_w) {
  GpuSpec gpu = gh200();
  gpu.tdp_w = tdp_w;
  gpu.power_limit_w = limit_w;
  return gpu;
}

// The default exponent is NVIDIA's rating of the same 132-SM die at two
// powers: H100 NVL 835 dense BF16 TFLOP/s at 400 W, H100 SXM 989.4 at 700 W.
TEST(PowerLimit, DefaultExponentReproducesTheH100NvlAndSxmRatings) {
  EXPECT_NEAR(power_limit_clock_factor(rated(700, 400)), 835.0 / 989.4, 0.002);
}

TEST(PowerLimit, NoLimitOrTheTdpLeavesTheClock) {
  EXPECT_EQ(power_limit_clock_factor(rated(700, 0)), 1.0);
  EXPECT_EQ(power_limit_clock_factor(rated(700, 700)), 1.0);
  EXPECT_EQ(power_limit_clock_factor(rated(0, 500)), 1.0);  // no TDP stated: the parser rejects this
}

TEST(PowerLimit, ClockFallsMonotonicallyWithTheLimit) {
  double previous = 1.0;
  for (double limit = 690; limit >= 200; limit -= 10) {
    const double f = power_limit_clock_factor(rated(700, limit));
    EXPECT_LT(f, previous) << limit;
    EXPECT_GT(f, 0.0) << limit;
    previous = f;
  }
  GpuSpec steeper = rated(700, 500);
  steeper.clock_power_exponent = 2;  // a smaller exponent: the clock falls faster for the same watts
  EXPECT_LT(power_limit_clock_factor(steeper), power_limit_clock_factor(rated(700, 500)));
  EXPECT_DOUBLE_EQ(power_limit_clock_factor(steeper), std::sqrt(500.0 / 700.0));
}

// Compute-bound kernels (tensor-core GEMMs, attention) slow by exactly the
// factor on top of the sustained clock; memory-bound kernels not at all (the
// HBM clock is not lowered); the calibration anchor keeps the quoted peak.
TEST(PowerLimit, SlowsComputeBoundKernelsOnTopOfTheSustainedClock) {
  GpuSpec gpu = rated(700, 0);
  gpu.sustained_clock = 0.89;
  const Roofline at_tdp(gpu);
  gpu.power_limit_w = 500;
  const Roofline capped(gpu);
  const double f = power_limit_clock_factor(gpu);
  ASSERT_LT(f, 0.92);
  ASSERT_GT(f, 0.88);
  const ComputeOp gemm = gemm_op({8192, 8192, 8192}, Dtype::bf16);
  ComputeOp attention;
  attention.cls = OpClass::attention;
  attention.dtype = Dtype::bf16;
  attention.flops = 1e13;
  attention.bytes = 1e6;
  const ComputeOp streaming = streaming_op(OpClass::elementwise, Dtype::bf16, 1e6, 1e9);
  ASSERT_GT(at_tdp.memory_seconds(streaming), at_tdp.compute_seconds(streaming));
  EXPECT_NEAR(capped.seconds(gemm) / at_tdp.seconds(gemm), 1 / f, 1e-12);
  EXPECT_NEAR(capped.seconds(attention) / at_tdp.seconds(attention), 1 / f, 1e-12);
  EXPECT_DOUBLE_EQ(capped.seconds(streaming), at_tdp.seconds(streaming));
  EXPECT_DOUBLE_EQ(capped.ideal_seconds(gemm), at_tdp.ideal_seconds(gemm));
}

}  // namespace
}  // namespace pf::models
