// Latin-hypercube samples and the triangular prior.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "models/uncertainty/latin_hypercube.h"

namespace pf::models::uncertainty {
namespace {

TEST(LatinHypercube, EveryStratumOnceInEveryParameter) {
  const int n = 37, p = 5;
  const auto points = latin_hypercube(n, p, 7);
  ASSERT_EQ(points.size(), static_cast<std::size_t>(n));
  for (int k = 0; k < p; ++k) {
    std::vector<int> seen(n, 0);
    for (const auto& x : points) {
      ASSERT_GE(x[k], 0.0);
      ASSERT_LT(x[k], 1.0);
      ++seen[static_cast<std::size_t>(std::floor(x[k] * n))];
    }
    for (int s = 0; s < n; ++s) EXPECT_EQ(seen[s], 1) << "parameter " << k << ", stratum " << s;
  }
}

TEST(LatinHypercube, ASeedGivesTheSamePointsAnotherSeedOthers) {
  EXPECT_EQ(latin_hypercube(16, 4, 3), latin_hypercube(16, 4, 3));
  EXPECT_NE(latin_hypercube(16, 4, 3), latin_hypercube(16, 4, 4));
  // The columns are shuffled independently: parameters are not paired stratum for stratum.
  const auto points = latin_hypercube(16, 2, 3);
  int same = 0;
  for (const auto& x : points) same += std::floor(x[0] * 16) == std::floor(x[1] * 16) ? 1 : 0;
  EXPECT_LT(same, 16);
}

TEST(TriangularPrior, ModeOneBoundsAndMedian) {
  EXPECT_DOUBLE_EQ(triangular_multiplier(0.0, 0.8, 1.2), 0.8);
  EXPECT_DOUBLE_EQ(triangular_multiplier(1.0, 0.8, 1.2), 1.2);
  EXPECT_NEAR(triangular_multiplier(0.5, 0.8, 1.2), 1.0, 1e-12);  // symmetric: the median is the mode
  EXPECT_DOUBLE_EQ(triangular_multiplier(0.3, 1.0, 1.0), 1.0);   // no range: the file's value
  // Asymmetric [0.5, 2]: P(m < 1) = 1/3, so u = 1/3 maps to the mode.
  EXPECT_NEAR(triangular_multiplier(1.0 / 3.0, 0.5, 2.0), 1.0, 1e-12);
  // The inverse CDF never falls.
  double last = 0;
  for (int i = 0; i <= 1000; ++i) {
    const double m = triangular_multiplier(i / 1000.0, 0.85, 1.03);
    EXPECT_GE(m, last);
    last = m;
  }
}

TEST(TriangularPrior, SampleMeanIsTheDistributionsMean) {
  // Mean of triangular(a, c, b) = (a + b + c) / 3; 4,000 stratified points hit it closely.
  const auto points = latin_hypercube(4000, 1, 11);
  double sum = 0;
  for (const auto& x : points) sum += triangular_multiplier(x[0], 0.7, 1.6);
  EXPECT_NEAR(sum / 4000, (0.7 + 1.0 + 1.6) / 3, 1e-3);
}

}  // namespace
}  // namespace pf::models::uncertainty
