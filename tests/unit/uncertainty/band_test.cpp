// The band's statistics: percentiles, rank correlation, ranking by swing.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "models/uncertainty/band.h"
#include "models/uncertainty/linear_band.h"

namespace pf::models::uncertainty {
namespace {

TEST(Band, PercentilesInterpolateBetweenOrderStatistics) {
  const std::vector<double> v{5, 1, 4, 2, 3};  // sorted 1..5
  EXPECT_DOUBLE_EQ(percentile(v, 0.5), 3);
  EXPECT_DOUBLE_EQ(percentile(v, 0.1), 1.4);  // numpy.percentile(v, 10)
  EXPECT_DOUBLE_EQ(percentile(v, 0.9), 4.6);
  EXPECT_DOUBLE_EQ(percentile({7}, 0.9), 7);
}

TEST(Band, SpearmanSeesMonotoneNotLinear) {
  const std::vector<double> x{1, 2, 3, 4, 5};
  EXPECT_NEAR(spearman(x, {1, 8, 27, 64, 125}), 1.0, 1e-12);
  EXPECT_NEAR(spearman(x, {9, 7, 5, 3, 1}), -1.0, 1e-12);
  EXPECT_EQ(spearman(x, {2, 2, 2, 2, 2}), 0.0);
  EXPECT_NEAR(spearman({1, 2, 2, 3}, {1, 2, 2, 3}), 1.0, 1e-12);  // ties take average ranks
}

Parameter fake(std::string_view key) {
  return Parameter{key, key, 0.0, 1.0, 0.5, 1.5, "test", "test", [](const ExperimentSpec&) { return 0.5; }};
}

// A synthetic "simulator": step = 100 / a + 10 * b, a dominant.
RunFigures simulate(const std::vector<double>& m) {
  RunFigures f;
  f.valid = true;
  f.step_ms = 100.0 / m[0] + 10.0 * m[1];
  f.mfu = 1.0 / f.step_ms;
  f.tokens_per_s = 1000.0 / f.step_ms;
  return f;
}

TEST(Band, RanksTheParameterThatMovesTheStepFirst) {
  const Parameter a = fake("a"), b = fake("b");
  std::vector<Prior> priors(2);
  priors[0].parameter = &b;  // listed first, moves the step less
  priors[1].parameter = &a;
  for (Prior& p : priors) {
    p.nominal = 0.5;
    p.low = 0.8;
    p.high = 1.2;
  }
  priors[1].column = 1;
  SamplePlan plan = plan_samples(priors, 64, 5);
  std::vector<RunFigures> sampled, ends;
  for (const auto& m : plan.multipliers) sampled.push_back(simulate({m[1], m[0]}));
  for (const auto& m : plan.one_at_a_time) ends.push_back(simulate({m[1], m[0]}));
  const Band band = summarise(plan, 5, sampled, ends);
  ASSERT_EQ(band.sensitivity.size(), 2u);
  EXPECT_EQ(band.sensitivity[0].key, "a");
  EXPECT_NEAR(band.sensitivity[0].swing_ms, 100 / 0.8 - 100 / 1.2, 1e-9);
  EXPECT_NEAR(band.sensitivity[1].swing_ms, 10 * 0.4, 1e-9);
  EXPECT_LT(band.sensitivity[0].correlation, -0.9);  // a faster rate, a shorter step
  EXPECT_GT(band.sensitivity[1].correlation, 0.0);
  EXPECT_LE(band.step_ms.p10, band.step_ms.p50);
  EXPECT_LE(band.step_ms.p50, band.step_ms.p90);
  EXPECT_EQ(band.samples, 64);
}

TEST(Band, DegeneratePriorsCollapseTheBandOntoTheNominalRun) {
  const Parameter a = fake("a");
  std::vector<Prior> priors(1);
  priors[0].parameter = &a;
  priors[0].nominal = 0.5;
  const SamplePlan plan = plan_samples(priors, 8, 1);
  for (const auto& m : plan.multipliers) EXPECT_EQ(m[0], 1.0);
  std::vector<RunFigures> sampled, ends;
  for (const auto& m : plan.multipliers) sampled.push_back(simulate({m[0], 1.0}));
  for (const auto& m : plan.one_at_a_time) ends.push_back(simulate({m[0], 1.0}));
  const Band band = summarise(plan, 1, sampled, ends);
  EXPECT_EQ(band.step_ms.p10, 110.0);
  EXPECT_EQ(band.step_ms.p90, 110.0);
  EXPECT_EQ(band.sensitivity[0].swing_ms, 0.0);
}

TEST(Band, FailedRunsAreCountedNotUsed) {
  const Parameter a = fake("a");
  std::vector<Prior> priors(1);
  priors[0].parameter = &a;
  priors[0].nominal = 0.5;
  priors[0].low = 0.9;
  priors[0].high = 1.1;
  const SamplePlan plan = plan_samples(priors, 4, 1);
  std::vector<RunFigures> sampled(4);
  sampled[1] = simulate({1.0, 1.0});
  const Band band = summarise(plan, 1, sampled, std::vector<RunFigures>(2));
  EXPECT_EQ(band.samples, 1);
  EXPECT_EQ(band.failed, 3);
  EXPECT_EQ(band.step_ms.p50, 110.0);
}

TEST(Band, APriorDrawsTheSameColumnWhateverElseIsSampled) {
  // Common random numbers: a parameter's multipliers depend on its column,
  // not on which other parameters an experiment samples.
  const Parameter a = fake("a"), b = fake("b");
  std::vector<Prior> both(2), only_b(1);
  both[0].parameter = &a;
  both[1].parameter = only_b[0].parameter = &b;
  both[1].column = only_b[0].column = 1;
  for (Prior* p : {&both[0], &both[1], &only_b[0]}) {
    p->low = 0.5;
    p->high = 1.5;
  }
  const SamplePlan x = plan_samples(both, 10, 3), y = plan_samples(only_b, 10, 3);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(x.multipliers[i][1], y.multipliers[i][0]) << i;
}

// hardware.gpu.speed_spread: the kernels already run at F = 1 + sigma E (part 0.04 here); sigma
// at multiplier v makes every kernel 1 + v (F - 1), so the kernels' share of
// the step moves by ((1 + v (F - 1)) / F - 1); nothing moves at F = 1.
TEST(LinearBand, SpeedSpreadMovesTheKernelsByTheFactorsRatio) {
  static const Parameter spread{"hardware.gpu.speed_spread", "spread", 0, 0.5, 0.8, 1.25, "", "",
                                [](const ExperimentSpec&) { return 0.012; }};
  std::vector<Prior> priors(1);
  priors[0].parameter = &spread;
  priors[0].nominal = 0.012;
  priors[0].low = spread.low;
  priors[0].high = spread.high;
  StepShares s{.step = 10, .gemm = 5, .attention = 2, .memory_bound = 1, .part_spread = 0.04};
  const LinearBand band = linear_band(priors, s);
  const double v10 = prior_quantile(priors[0], 0.1), v90 = prior_quantile(priors[0], 0.9);
  const double up = 8 * ((1 + v90 * 0.04) / 1.04 - 1), down = 8 * ((1 + v10 * 0.04) / 1.04 - 1);
  EXPECT_GT(up, 0);
  EXPECT_LT(down, 0);
  EXPECT_NEAR(band.high, 10 + up, 1e-12);
  EXPECT_NEAR(band.low, 10 + down, 1e-12);
  EXPECT_EQ(band.covers, std::vector<std::string>{"hardware.gpu.speed_spread"});
  s.part_spread = 0;
  const LinearBand one = linear_band(priors, s);
  EXPECT_EQ(one.low, 10);
  EXPECT_EQ(one.high, 10);
}

// With both sigmas, F = 1 + hypot(part, fluctuation): each prior scales its
// own term only. Part 0.03 and fluctuation 0.04 make F = 1.05; the
// fluctuation at v gives 1 + hypot(0.03, 0.04 v), the spread at v
// 1 + hypot(0.03 v, 0.04).
TEST(LinearBand, EachSigmaMovesItsOwnTermOfTheSlowestGpuFactor) {
  static const Parameter fluctuation{"hardware.gpu.speed_fluctuation", "fluctuation", 0, 0.5, 0.8, 1.2, "", "",
                                     [](const ExperimentSpec&) { return 0.015; }};
  static const Parameter spread{"hardware.gpu.speed_spread", "spread", 0, 0.5, 0.8, 1.25, "", "",
                                [](const ExperimentSpec&) { return 0.012; }};
  const StepShares s{.step = 10, .gemm = 5, .attention = 2, .memory_bound = 1, .part_spread = 0.03,
                     .lockstep_fluctuation = 0.04};
  for (const Parameter* p : {&fluctuation, &spread}) {
    std::vector<Prior> priors(1);
    priors[0].parameter = p;
    priors[0].nominal = p->nominal(ExperimentSpec{});
    priors[0].low = p->low;
    priors[0].high = p->high;
    const LinearBand band = linear_band(priors, s);
    const auto moved = [&](double v) {
      return p == &fluctuation ? 1 + std::hypot(0.03, 0.04 * v) : 1 + std::hypot(0.03 * v, 0.04);
    };
    const double v10 = prior_quantile(priors[0], 0.1), v90 = prior_quantile(priors[0], 0.9);
    EXPECT_NEAR(band.high, 10 + 8 * (moved(v90) / 1.05 - 1), 1e-12) << p->key;
    EXPECT_NEAR(band.low, 10 + 8 * (moved(v10) / 1.05 - 1), 1e-12) << p->key;
  }
}

}  // namespace
}  // namespace pf::models::uncertainty

namespace pf::models::uncertainty {
namespace {

TEST(LinearBand, EachPriorMovesItsOwnShareOfTheStepAndTheMovesAddInQuadrature) {
  static const Parameter gemm{"hardware.gpu.efficiency.gemm", "gemm", 0, 1, 0.8, 1.25, "", "",
                              [](const ExperimentSpec&) { return 0.5; }};
  static const Parameter host{"training.host_overhead_us", "host", 0, 1e9, 0.5, 2.0, "", "",
                              [](const ExperimentSpec&) { return 10.0; }};
  static const Parameter nccl{"hardware.nccl.latency_scale", "nccl", 0, 1e9, 0.5, 2.0, "", "",
                              [](const ExperimentSpec&) { return 1.0; }};
  std::vector<Prior> priors(3);
  for (auto [p, q] : {std::pair{&priors[0], &gemm}, {&priors[1], &host}, {&priors[2], &nccl}}) {
    p->parameter = q;
    p->nominal = q->nominal({});
    p->low = q->low;
    p->high = q->high;
  }
  StepShares s;
  s.step = 10;
  s.gemm = 6;
  s.host_bound = 1;
  const LinearBand band = linear_band(priors, s);
  // GEMM: a slower rate lengthens the step by gemm x (1/m - 1), a faster one shortens it.
  const double g10 = 6 * (1 / prior_quantile(priors[0], 0.1) - 1), g90 = 6 * (1 / prior_quantile(priors[0], 0.9) - 1);
  const double h10 = 1 * (prior_quantile(priors[1], 0.1) - 1), h90 = 1 * (prior_quantile(priors[1], 0.9) - 1);
  EXPECT_GT(g10, 0);
  EXPECT_LT(g90, 0);
  EXPECT_NEAR(band.high, 10 + std::sqrt(g10 * g10 + h90 * h90), 1e-12);
  EXPECT_NEAR(band.low, 10 - std::sqrt(g90 * g90 + h10 * h10), 1e-12);
  // The NCCL latency is not priced from the run's totals: left out, and said so.
  EXPECT_EQ(band.covers, (std::vector<std::string>{"hardware.gpu.efficiency.gemm", "training.host_overhead_us"}));
  // Without GEMM or host time the band closes on the step.
  const LinearBand none = linear_band(priors, StepShares{10, 0, 0, 0, 0, 0, 0, 1});
  EXPECT_EQ(none.low, 10);
  EXPECT_EQ(none.high, 10);
}

}  // namespace
}  // namespace pf::models::uncertainty
