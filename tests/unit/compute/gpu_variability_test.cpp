// The expected slowest GPU of a job (models/compute/gpu_variability.h).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

#include "models/compute/gpu_variability.h"

namespace pf::models {
namespace {

// Closed forms: E[max of 2] = 1 / sqrt(pi), E[max of 3] = 3 / (2 sqrt(pi)).
TEST(GpuVariability, ExpectedMaximumMatchesTheClosedForms) {
  EXPECT_EQ(expected_max_standard_normal(1), 0);
  EXPECT_NEAR(expected_max_standard_normal(2), 1 / std::sqrt(std::numbers::pi), 1e-9);
  EXPECT_NEAR(expected_max_standard_normal(3), 1.5 / std::sqrt(std::numbers::pi), 1e-9);
}

// Against a Monte Carlo estimate, and it only grows with the job.
TEST(GpuVariability, ExpectedMaximumAgreesWithSamplingAndGrowsWithTheJob) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> z;
  for (int n : {8, 64, 512}) {
    double sum = 0;
    const int trials = 4000;
    for (int t = 0; t < trials; ++t) {
      double m = -1e9;
      for (int i = 0; i < n; ++i) m = std::max(m, z(rng));
      sum += m;
    }
    EXPECT_NEAR(expected_max_standard_normal(n), sum / trials, 0.02) << n << " GPUs";
  }
  double previous = 0;
  for (int n = 2; n <= 1 << 16; n *= 2) {
    const double e = expected_max_standard_normal(n);
    EXPECT_GT(e, previous);
    previous = e;
  }
  EXPECT_NEAR(expected_max_standard_normal(8), 1.4236, 1e-4);
}

TEST(GpuVariability, FactorIsOneWithoutSpreadOrWithOneGpu) {
  EXPECT_EQ(slowest_gpu_factor(0, 4096), 1);
  EXPECT_EQ(slowest_gpu_factor(0.012, 1), 1);
  EXPECT_NEAR(slowest_gpu_factor(0.012, 2), 1 + 0.012 / std::sqrt(std::numbers::pi), 1e-12);
}

}  // namespace
}  // namespace pf::models
