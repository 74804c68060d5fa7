#include "models/workload/layer_split.h"

#include <numeric>
#include <string>

#include "core/error.h"

namespace pf::models::workload {
namespace {

// Even spread: `deficit` stages get `base` layers, the others base + 1; the
// deficit stages are picked from both ends inwards, last stage first.
std::vector<int> spread_evenly(int layers, int vstages) {
  int base = layers / vstages;
  int deficit = vstages - layers % vstages;
  if (layers % vstages == 0) deficit = 0;
  std::vector<int> counts(static_cast<std::size_t>(vstages), base + (deficit > 0 ? 1 : 0));
  for (int i = 0; i < deficit; ++i) {
    int from_end = i / 2;
    int at = (i % 2 == 0) ? vstages - 1 - from_end : from_end;
    counts[static_cast<std::size_t>(at)] = base;
  }
  return counts;
}

}  // namespace

LayerSplit::LayerSplit(int layers, int pp, int chunks, const std::vector<int>& explicit_counts)
    : pp_(pp), chunks_(chunks) {
  int vstages = pp * chunks;
  if (explicit_counts.empty()) {
    counts_ = spread_evenly(layers, vstages);
  } else {
    int sum = std::accumulate(explicit_counts.begin(), explicit_counts.end(), 0);
    bool negative = false;
    for (int c : explicit_counts) negative = negative || c < 0;
    if (static_cast<int>(explicit_counts.size()) != vstages || sum != layers || negative) {
      throw ConfigError("parallelism.layers_per_stage: expected " + std::to_string(vstages) +
                        " non-negative entries (pp * virtual_stages) summing to " + std::to_string(layers) +
                        " layers, found " + std::to_string(explicit_counts.size()) + " entries summing to " +
                        std::to_string(sum));
    }
    counts_ = explicit_counts;
  }
  first_.resize(counts_.size());
  int next = 0;
  for (std::size_t v = 0; v < counts_.size(); ++v) {
    first_[v] = next;
    next += counts_[v];
  }
}

int LayerSplit::stage_layers(int stage) const {
  int n = 0;
  for (int c = 0; c < chunks_; ++c) n += layer_count(vstage(stage, c));
  return n;
}

}  // namespace pf::models::workload
