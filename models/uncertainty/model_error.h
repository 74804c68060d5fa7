// The simulator's own error, measured: preflight's step time against the
// step times published training runs measured (tests/validation), as a prior
// of the band.
//
// The cost-model priors (parameters.h) say how far each parameter may be off;
// they say nothing about what the model leaves out (a kernel or a
// synchronisation it does not emit, a framework's overheads, contention,
// routing imbalance), and on the validation rows those errors are larger than
// the parameters' and mostly of one sign. This prior is their measured
// distribution: the quantiles of measured / predicted step time over the
// validation rows of one stratum (dense or MoE models), a multiplier of the
// step time independent of the cost-model parameters. The sampled band is then
// the exact distribution of (a sampled run's step time) x (the multiplier):
// the mixture over the N runs of the table's distribution scaled by each run
// (mixture_percentile), not a sample of it, so its percentiles need no more
// runs than the parameters do. A sweep compares variants sample by sample on
// their own step times: a multiplier common to both would cancel, so it moves
// no ranking and only widens each variant's band.
// `simulation.uncertainty_model_error: false` leaves it out.
// tests/bench/model_error_table.py regenerates the table from
// accuracy_table.py's output whenever the cost model changes.
#pragma once

#include <array>
#include <vector>
#include <string_view>

#include "models/spec/experiment_spec.h"

namespace pf::models::uncertainty {

// The probability levels of the table's knots.
inline constexpr std::array<double, 9> kModelErrorLevels{0.0, 0.05, 0.10, 0.25, 0.50, 0.75, 0.90, 0.95, 1.0};

struct ModelError {
  std::string_view stratum;                  // "dense" or "moe"
  int rows = 0;                              // validation rows it was measured on
  std::array<double, 9> quantile{};          // measured / predicted at kModelErrorLevels
  std::string_view source;                   // where the table comes from

  // The multiplier at cumulative probability u in [0, 1] (linear between knots).
  double multiplier(double u) const;
  // Its inverse: the probability that the multiplier is at most m.
  double cdf(double m) const;
};

// The stratum of `e`: MoE when the model has experts, dense otherwise.
const ModelError& model_error_for(const ExperimentSpec& e);

// The prior an uncertainty run of `e` includes: model_error_for(e), or none
// when `simulation.uncertainty_model_error` is false.
const ModelError* model_error_prior(const ExperimentSpec& e);

// Percentile q of x = v_i x D (or v_i / D with `divided`), v_i each of the
// values with equal weight and D drawn from `e`: the q-quantile of the mixture
// of the runs' values each spread by the model error. Bisection on
// mean_i P(v_i D <= x) = q to 1e-12 relative; values positive, at least one.
double mixture_percentile(const std::vector<double>& values, const ModelError& e, double q, bool divided = false);

}  // namespace pf::models::uncertainty
