// `preflight sweep ... --uncertainty N` (io/cli/README.md): every valid
// variant re-run under the same N samples of the cost-model priors (common
// random numbers: sample i draws the same Latin-hypercube point for every
// variant, models/uncertainty/band.h, each variant's priors applied to its own
// values), so that two variants are compared sample by sample: "400 Gb/s is
// faster than 200 Gb/s in 97 % of samples, by 12-21 %". A ranking that flips
// in more than a tenth of the samples is flagged.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/communicator.h"
#include "io/sweep/sweep_runner.h"
#include "models/uncertainty/band.h"

namespace pf::sweep {

// A ranking holds when the better variant is faster in at least this share of samples.
inline constexpr double kRobustShare = 0.9;

struct VariantBand {
  std::size_t grid_index = 0;
  std::vector<double> step_ms;  // per sample, sample order; NaN where the sample did not run
  models::uncertainty::Percentiles percentiles;
  int samples = 0;              // samples that gave a step time
};

// How a variant compares with the next one in the ranking, over the samples both ran.
struct Comparison {
  int samples = 0;
  double faster_share = 0;      // samples in which this variant's step is shorter
  double margin_pct_p10 = 0;    // (next / this - 1) x 100, P10 and P90 over the samples
  double margin_pct_p90 = 0;
  bool robust() const { return faster_share >= kRobustShare; }
};

struct SweepBands {
  int samples = 0;
  std::uint64_t seed = 1;
  std::vector<VariantBand> bands;  // one per valid variant, grid order
  bool model_error = false;        // the model's measured error is in the bands (models/uncertainty/model_error.h)
  const VariantBand* find(std::size_t grid_index) const;
};

// Collective over `world`: N jobs per valid variant, dealt like the sweep's.
SweepBands run_sweep_bands(const std::string& experiment_path, const std::vector<std::string>& sets,
                           const std::vector<PreparedVariant>& variants, const core::Communicator& world, int samples,
                           std::uint64_t seed, const SweepRunOptions& options);

Comparison compare(const VariantBand& better, const VariantBand& next);

// The table's uncertainty section: rows in ranked order (grid indices).
std::string format_bands(const SweepBands& b, const std::vector<std::size_t>& ranked,
                         const std::vector<std::string>& labels);
// {"samples", "seed", "p10", "p50", "p90", "vs_next": {...} | null} for a row.
nlohmann::ordered_json band_json(const SweepBands& b, std::size_t grid_index, std::optional<std::size_t> next);

}  // namespace pf::sweep
