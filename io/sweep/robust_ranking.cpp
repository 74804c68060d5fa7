#include "io/sweep/robust_ranking.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "io/report/string_format.h"
#include "io/sweep/uncertainty_run.h"

namespace pf::sweep {

namespace mu = models::uncertainty;

const VariantBand* SweepBands::find(std::size_t grid_index) const {
  for (const VariantBand& b : bands) {
    if (b.grid_index == grid_index) return &b;
  }
  return nullptr;
}

SweepBands run_sweep_bands(const std::string& experiment_path, const std::vector<std::string>& sets,
                           const std::vector<PreparedVariant>& variants, const core::Communicator& world, int samples,
                           std::uint64_t seed, const SweepRunOptions& options) {
  SweepBands out;
  out.samples = samples;
  out.seed = seed;
  std::vector<Variant> jobs;
  // Per band, the model error its percentiles include (none when off); the
  // comparisons use the runs' own step times, where a common error cancels
  // (models/uncertainty/model_error.h).
  std::vector<const mu::ModelError*> errors;
  for (const PreparedVariant& p : variants) {
    if (!p.experiment) continue;
    VariantBand band;
    band.grid_index = p.variant.grid_index;
    band.step_ms.assign(static_cast<std::size_t>(samples), std::numeric_limits<double>::quiet_NaN());
    out.bands.push_back(std::move(band));
    const mu::SamplePlan plan =
        mu::plan_samples(mu::priors_for(*p.experiment), samples, seed, mu::model_error_prior(*p.experiment));
    out.model_error = out.model_error || plan.model_error != nullptr;
    errors.push_back(plan.model_error);
    for (const Variant& sample : uncertainty_variants(plan)) {
      if (sample.grid_index >= plan.multipliers.size()) break;  // sampled runs only, no one-at-a-time ends
      Variant job = p.variant;
      job.grid_index = jobs.size();
      job.assignments.insert(job.assignments.end(), sample.assignments.begin(), sample.assignments.end());
      jobs.push_back(std::move(job));
    }
  }
  const SweepRunResult result = run_sweep(prepare_variants(experiment_path, sets, jobs), world, options);
  for (const SweepRow& row : result.rows) {
    const std::size_t b = row.grid_index / static_cast<std::size_t>(samples);
    const std::size_t i = row.grid_index % static_cast<std::size_t>(samples);
    if (row.valid) out.bands[b].step_ms[i] = row.step_time_ms;
  }
  for (std::size_t k = 0; k < out.bands.size(); ++k) {
    VariantBand& band = out.bands[k];
    std::vector<double> ok;
    for (double v : band.step_ms) {
      if (!std::isnan(v)) ok.push_back(v);
    }
    band.samples = static_cast<int>(ok.size());
    if (!ok.empty()) band.percentiles = mu::percentiles(ok, errors[k]);
  }
  return out;
}

Comparison compare(const VariantBand& better, const VariantBand& next) {
  Comparison c;
  std::vector<double> margins;
  int faster = 0;
  for (std::size_t i = 0; i < better.step_ms.size() && i < next.step_ms.size(); ++i) {
    const double a = better.step_ms[i], b = next.step_ms[i];
    if (std::isnan(a) || std::isnan(b)) continue;
    ++c.samples;
    faster += a < b ? 1 : 0;
    margins.push_back((b / a - 1) * 100);
  }
  if (c.samples == 0) return c;
  c.faster_share = static_cast<double>(faster) / c.samples;
  c.margin_pct_p10 = mu::percentile(margins, 0.10);
  c.margin_pct_p90 = mu::percentile(margins, 0.90);
  return c;
}

std::string format_bands(const SweepBands& b, const std::vector<std::size_t>& ranked,
                         const std::vector<std::string>& labels) {
  std::size_t width = 7;
  for (const std::string& l : labels) width = std::max(width, l.size());
  const int w = static_cast<int>(width);
  std::string out = report::format("uncertainty: %d samples of the cost-model priors%s (seed %llu), the same for every variant\n",
                         b.samples, b.model_error ? " and the model's measured error" : "",
                         static_cast<unsigned long long>(b.seed));
  out += report::format("%4s  %-*s  %12s  %12s  %12s  %s\n", "rank", w, "variant", "p10_ms", "p50_ms", "p90_ms",
              "against the next rank");
  for (std::size_t k = 0; k < ranked.size(); ++k) {
    const VariantBand* v = b.find(ranked[k]);
    if (v == nullptr) continue;
    std::string versus = "-";
    if (k + 1 < ranked.size()) {
      if (const VariantBand* next = b.find(ranked[k + 1]); next != nullptr) {
        const Comparison c = compare(*v, *next);
        versus = report::format("faster in %.0f %% of %d samples, by %.1f .. %.1f %%%s", 100 * c.faster_share, c.samples,
                      c.margin_pct_p10, c.margin_pct_p90, c.robust() ? "" : "  (ranking flips within the band)");
      }
    }
    out += report::format("%4zu  %-*s  %12.3f  %12.3f  %12.3f  %s\n", k + 1, w, labels[k].c_str(), v->percentiles.p10,
                v->percentiles.p50, v->percentiles.p90, versus.c_str());
  }
  return out;
}

nlohmann::ordered_json band_json(const SweepBands& b, std::size_t grid_index, std::optional<std::size_t> next) {
  const VariantBand* v = b.find(grid_index);
  if (v == nullptr) return nullptr;
  nlohmann::ordered_json j{{"samples", v->samples},
                           {"seed", b.seed},
                           {"p10", v->percentiles.p10},
                           {"p50", v->percentiles.p50},
                           {"p90", v->percentiles.p90},
                           {"vs_next", nullptr}};
  const VariantBand* n = next ? b.find(*next) : nullptr;
  if (n != nullptr) {
    const Comparison c = compare(*v, *n);
    j["vs_next"] = {{"grid_index", *next},
                    {"samples", c.samples},
                    {"faster_share", c.faster_share},
                    {"margin_pct_p10", c.margin_pct_p10},
                    {"margin_pct_p90", c.margin_pct_p90},
                    {"robust", c.robust()}};
  }
  return j;
}

}  // namespace pf::sweep
