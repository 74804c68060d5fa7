// The model-error prior: its table, its sampling, and what it does to the
// sampled and the cheap band.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "models/uncertainty/band.h"
#include "models/uncertainty/linear_band.h"
#include "models/uncertainty/model_error.h"

namespace pf::models::uncertainty {
namespace {

ExperimentSpec moe_experiment() {
  ExperimentSpec e;
  e.model.moe = MoeSpec{};
  e.model.moe->num_experts = 8;
  return e;
}

TEST(ModelError, TheTablesAreQuantileFunctionsMeasuredOnEnoughRows) {
  for (const ExperimentSpec& e : {ExperimentSpec{}, moe_experiment()}) {
    const ModelError& m = model_error_for(e);
    EXPECT_GE(m.rows, 10) << m.stratum;
    EXPECT_TRUE(std::is_sorted(m.quantile.begin(), m.quantile.end())) << m.stratum;
    EXPECT_GT(m.quantile.front(), 0.0) << m.stratum;
    EXPECT_FALSE(m.source.empty());
    // The knots are the table's own values at its levels, linear between.
    EXPECT_DOUBLE_EQ(m.multiplier(0.10), m.quantile[2]);
    EXPECT_DOUBLE_EQ(m.multiplier(0.90), m.quantile[6]);
    EXPECT_DOUBLE_EQ(m.multiplier(0.175), (m.quantile[2] + m.quantile[3]) / 2);
    EXPECT_DOUBLE_EQ(m.multiplier(-1), m.quantile.front());
    EXPECT_DOUBLE_EQ(m.multiplier(2), m.quantile.back());
  }
  EXPECT_EQ(model_error_for(ExperimentSpec{}).stratum, "dense");
  EXPECT_EQ(model_error_for(moe_experiment()).stratum, "moe");
}

TEST(ModelError, TheKeyTurnsItOff) {
  ExperimentSpec e;
  EXPECT_NE(model_error_prior(e), nullptr);
  e.simulation.uncertainty_model_error = false;
  EXPECT_EQ(model_error_prior(e), nullptr);
}

TEST(ModelError, TheCdfInvertsTheQuantileFunction) {
  const ModelError& m = model_error_for(moe_experiment());
  for (double u : {0.0, 0.03, 0.1, 0.33, 0.5, 0.8, 0.9, 0.97}) EXPECT_NEAR(m.cdf(m.multiplier(u)), u, 1e-12) << u;
  EXPECT_EQ(m.cdf(m.quantile.front() * 0.99), 0.0);
  EXPECT_EQ(m.cdf(m.quantile.back() * 1.01), 1.0);
}

// One run: the band is that run's step times the table's own quantiles, and
// MFU / tokens/s divided by the opposite ones, exactly (no sampling of it).
TEST(ModelError, AloneTheSampledBandIsTheStepTimesTheMeasuredQuantiles) {
  const ModelError& m = model_error_for(ExperimentSpec{});
  const SamplePlan plan = plan_samples({}, 3, 7, &m);
  const std::vector<RunFigures> runs(3, RunFigures{true, 100.0, 0.5, 1000.0});
  const Band band = summarise(plan, 7, runs, {});
  ASSERT_NE(band.model_error, nullptr);
  EXPECT_EQ(band.model_error->stratum, "dense");
  EXPECT_NEAR(band.step_ms.p10, 100 * m.multiplier(0.10), 1e-9);
  EXPECT_NEAR(band.step_ms.p50, 100 * m.multiplier(0.50), 1e-9);
  EXPECT_NEAR(band.step_ms.p90, 100 * m.multiplier(0.90), 1e-9);
  EXPECT_NEAR(band.mfu.p10, 0.5 / m.multiplier(0.90), 1e-12);
  EXPECT_NEAR(band.tokens_per_s.p90, 1000 / m.multiplier(0.10), 1e-9);
}

// Several runs: each percentile x solves mean_i P(v_i D <= x) = q, and lies
// between the smallest and the largest run's own percentile.
TEST(ModelError, ManyRunsGiveTheMixturesPercentiles) {
  const ModelError& m = model_error_for(moe_experiment());
  const std::vector<double> v{80, 100, 130, 90};
  for (double q : {0.1, 0.5, 0.9}) {
    const double x = mixture_percentile(v, m, q);
    double p = 0;
    for (double s : v) p += m.cdf(x / s) / static_cast<double>(v.size());
    EXPECT_NEAR(p, q, 1e-9) << q;
    EXPECT_GE(x, 80 * m.multiplier(q) - 1e-9);
    EXPECT_LE(x, 130 * m.multiplier(q) + 1e-9);
    const double y = mixture_percentile(v, m, q, true);  // of v / D
    double r = 0;
    for (double s : v) r += (1 - m.cdf(s / y)) / static_cast<double>(v.size());
    EXPECT_NEAR(r, q, 1e-9) << q;
  }
  // Without a model error, the plain percentiles.
  const Percentiles plain = percentiles(v, nullptr);
  EXPECT_DOUBLE_EQ(plain.p50, percentile(v, 0.5));
}

// The model error adds no Latin-hypercube column: the parameters draw what
// they drew without it, and their rank correlations are with the runs' step
// times, which it does not touch.
TEST(ModelError, LeavesTheParametersDrawsAndCorrelationsAlone) {
  const Parameter p{"k", "k", 0.0, 10.0, 0.5, 1.5, "test", "test", [](const ExperimentSpec&) { return 1.0; }};
  Prior prior;
  prior.parameter = &p;
  prior.nominal = 1;
  prior.low = 0.5;
  prior.high = 1.5;
  const SamplePlan without = plan_samples({prior}, 32, 3);
  const SamplePlan with = plan_samples({prior}, 32, 3, &model_error_for(ExperimentSpec{}));
  EXPECT_EQ(without.multipliers, with.multipliers);
  std::vector<RunFigures> runs, ends;
  for (const auto& m : with.multipliers) runs.push_back({true, 100 * m[0], 0.5, 1000});
  for (const auto& m : with.one_at_a_time) ends.push_back({true, 100 * m[0], 0.5, 1000});
  const Band a = summarise(with, 3, runs, ends), b = summarise(without, 3, runs, ends);
  ASSERT_EQ(a.sensitivity.size(), 1u);
  EXPECT_NEAR(a.sensitivity[0].correlation, 1.0, 1e-12);
  EXPECT_EQ(a.sensitivity[0].swing_ms, b.sensitivity[0].swing_ms);
  // The band itself is wider with it, and moved up by the table's median.
  EXPECT_GT(a.step_ms.p90 / a.step_ms.p10, b.step_ms.p90 / b.step_ms.p10);
  EXPECT_GT(a.step_ms.p50, b.step_ms.p50);
}

TEST(ModelError, TheCheapBandMovesTheWholeStepByItsP10AndP90) {
  const ModelError& m = model_error_for(ExperimentSpec{});
  StepShares s;
  s.step = 2.0;
  const LinearBand alone = linear_band({}, s, &m);
  ASSERT_EQ(alone.covers, std::vector<std::string>{"model_error"});
  // Either end of the measured error that lies on one side of 1 moves the
  // step that way; the other side gets no move from it.
  EXPECT_NEAR(alone.low, 2.0 * std::min(1.0, m.multiplier(0.1)), 1e-12);
  EXPECT_NEAR(alone.high, 2.0 * std::max(1.0, m.multiplier(0.9)), 1e-12);
  const LinearBand off = linear_band({}, s, nullptr);
  EXPECT_TRUE(off.covers.empty());
  EXPECT_DOUBLE_EQ(off.low, 2.0);
  EXPECT_DOUBLE_EQ(off.high, 2.0);
}

}  // namespace
}  // namespace pf::models::uncertainty
