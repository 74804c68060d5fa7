// What N sampled runs say: percentiles of step time, MFU and tokens/s, and
// which parameter's range moves the step time most (a one-at-a-time tornado
// beside each parameter's rank correlation with the sampled step times).
#pragma once

#include <string>
#include <vector>

#include "models/uncertainty/model_error.h"
#include "models/uncertainty/parameters.h"

namespace pf::models::uncertainty {

// The plan of an uncertainty run: N Latin-hypercube samples, then for each
// prior its low and its high end with every other parameter nominal.
struct SamplePlan {
  std::vector<Prior> priors;
  std::vector<std::vector<double>> multipliers;  // N x P, the sampled runs
  // The one-at-a-time runs: 2 per prior, low then high.
  std::vector<std::vector<double>> one_at_a_time;
  // The model's own error (model_error.h), or none: the band is the sampled
  // runs' figures spread by it (mixture_percentile), not drawn.
  const ModelError* model_error = nullptr;
};

// Prior i draws from column priors[i].column of one N-point Latin hypercube.
SamplePlan plan_samples(std::vector<Prior> priors, int samples, std::uint64_t seed,
                        const ModelError* model_error = nullptr);

// One run's figures (a sample or a one-at-a-time end).
struct RunFigures {
  bool valid = false;
  double step_ms = 0;
  double mfu = 0;
  double tokens_per_s = 0;
};

struct Percentiles {
  double p10 = 0, p50 = 0, p90 = 0;
};

// Linear interpolation between order statistics (numpy's default "linear"
// method); NaN-free input, at least one value.
double percentile(std::vector<double> values, double q);
Percentiles percentiles(const std::vector<double>& values);
// With a model error: the percentiles of the values spread by it (divided:
// of values / D, as MFU and tokens/s are); without, percentiles(values).
Percentiles percentiles(const std::vector<double>& values, const ModelError* e, bool divided = false);

struct Sensitivity {
  std::string key, label, source, measure;
  bool from_preset = false, measured = false;
  double value_low = 0, value_high = 0;  // the parameter at its prior's ends (clipped)
  double step_ms_low = 0, step_ms_high = 0;  // one at a time, others nominal
  double swing_ms = 0;                   // |high - low|
  double correlation = 0;                // Spearman rank correlation with the sampled runs' step times
};

struct Band {
  int samples = 0;                       // sampled runs that gave figures
  int failed = 0;                        // sampled runs that did not
  std::uint64_t seed = 0;
  Percentiles step_ms, mfu, tokens_per_s;
  std::vector<Sensitivity> sensitivity;  // largest swing first
  const ModelError* model_error = nullptr;  // the model error the percentiles include, if any
};

// `sampled` in plan.multipliers order, `one_at_a_time` in plan order.
Band summarise(const SamplePlan& plan, std::uint64_t seed, const std::vector<RunFigures>& sampled,
               const std::vector<RunFigures>& one_at_a_time);

// Spearman's rank correlation (average ranks for ties); 0 when either
// series is constant.
double spearman(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace pf::models::uncertainty
