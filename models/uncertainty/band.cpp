#include "models/uncertainty/band.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "models/uncertainty/latin_hypercube.h"

namespace pf::models::uncertainty {
namespace {

std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double mean_rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0;
    for (std::size_t k = i; k <= j; ++k) r[order[k]] = mean_rank;
    i = j + 1;
  }
  return r;
}

}  // namespace

SamplePlan plan_samples(std::vector<Prior> priors, int samples, std::uint64_t seed, const ModelError* model_error) {
  SamplePlan plan;
  plan.priors = std::move(priors);
  plan.model_error = model_error;
  int columns = 0;
  for (const Prior& p : plan.priors) columns = std::max(columns, p.column + 1);
  for (const std::vector<double>& u : latin_hypercube(samples, columns, seed)) {
    std::vector<double> m(plan.priors.size());
    for (std::size_t i = 0; i < m.size(); ++i) {
      const Prior& p = plan.priors[i];
      m[i] = triangular_multiplier(u[static_cast<std::size_t>(p.column)], p.low, p.high);
    }
    plan.multipliers.push_back(std::move(m));
  }
  for (std::size_t i = 0; i < plan.priors.size(); ++i) {
    for (double end : {plan.priors[i].low, plan.priors[i].high}) {
      std::vector<double> m(plan.priors.size(), 1.0);
      m[i] = end;
      plan.one_at_a_time.push_back(std::move(m));
    }
  }
  return plan;
}

double percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  const double pos = q * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (pos - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

Percentiles percentiles(const std::vector<double>& values) {
  return {percentile(values, 0.10), percentile(values, 0.50), percentile(values, 0.90)};
}

Percentiles percentiles(const std::vector<double>& values, const ModelError* e, bool divided) {
  if (e == nullptr) return percentiles(values);
  return {mixture_percentile(values, *e, 0.10, divided), mixture_percentile(values, *e, 0.50, divided),
          mixture_percentile(values, *e, 0.90, divided)};
}

double spearman(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2) return 0;
  const std::vector<double> rx = ranks(x), ry = ranks(y);
  const double n = static_cast<double>(x.size());
  const double mean = (n - 1) / 2.0;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (rx[i] - mean) * (ry[i] - mean);
    sxx += (rx[i] - mean) * (rx[i] - mean);
    syy += (ry[i] - mean) * (ry[i] - mean);
  }
  if (sxx <= 0 || syy <= 0) return 0;
  return sxy / std::sqrt(sxx * syy);
}

Band summarise(const SamplePlan& plan, std::uint64_t seed, const std::vector<RunFigures>& sampled,
               const std::vector<RunFigures>& one_at_a_time) {
  Band b;
  b.seed = seed;
  std::vector<double> step, mfu, tokens;
  std::vector<std::size_t> ok;
  for (std::size_t i = 0; i < sampled.size(); ++i) {
    if (!sampled[i].valid) {
      ++b.failed;
      continue;
    }
    ok.push_back(i);
    step.push_back(sampled[i].step_ms);
    mfu.push_back(sampled[i].mfu);
    tokens.push_back(sampled[i].tokens_per_s);
  }
  b.model_error = plan.model_error;
  b.samples = static_cast<int>(ok.size());
  if (!ok.empty()) {
    // The model's error stretches the step; MFU and tokens/s shrink alike.
    b.step_ms = percentiles(step, plan.model_error);
    b.mfu = percentiles(mfu, plan.model_error, true);
    b.tokens_per_s = percentiles(tokens, plan.model_error, true);
  }
  for (std::size_t i = 0; i < plan.priors.size(); ++i) {
    const Prior& p = plan.priors[i];
    Sensitivity s;
    s.key = std::string(p.parameter->key);
    s.label = std::string(p.parameter->label);
    s.source = p.source;
    s.measure = p.measure;
    s.from_preset = p.from_preset;
    s.measured = p.measured;
    s.value_low = p.value(p.low);
    s.value_high = p.value(p.high);
    const RunFigures& lo = one_at_a_time[2 * i];
    const RunFigures& hi = one_at_a_time[2 * i + 1];
    if (lo.valid && hi.valid) {
      s.step_ms_low = lo.step_ms;
      s.step_ms_high = hi.step_ms;
      s.swing_ms = std::abs(hi.step_ms - lo.step_ms);
    }
    std::vector<double> x;
    for (std::size_t k : ok) x.push_back(plan.multipliers[k][i]);
    s.correlation = spearman(x, step);
    b.sensitivity.push_back(std::move(s));
  }
  // Largest swing first; the parameter order breaks ties (stable).
  std::stable_sort(b.sensitivity.begin(), b.sensitivity.end(),
                   [](const Sensitivity& a, const Sensitivity& c) { return a.swing_ms > c.swing_ms; });
  return b;
}

}  // namespace pf::models::uncertainty
