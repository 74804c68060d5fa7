// Which transformer layers each virtual pipeline stage holds.
//
// Virtual stages are numbered in model order: vstage = chunk * pp + stage, so
// with interleaving stage r holds chunks r, r + pp, r + 2pp, ... (Megatron's
// interleaved assignment). vstage 0 also holds the embedding, the last vstage
// the final norm, LM head and loss.
#pragma once

#include <vector>

namespace pf::models::workload {

class LayerSplit {
 public:
  // `explicit_counts` empty: spread `layers` as evenly as possible over
  // pp * chunks virtual stages (counts differ by at most one). The stages that
  // get one layer fewer are taken from the ends first (last, first, second to
  // last, ...), because those also carry the LM head and the embedding; this
  // reproduces Llama 3 405B's 126 layers on 16 stages with 7 layers on the first
  // and last stage and 8 elsewhere (Llama 3 paper, section 3.3.2).
  // Otherwise one count per virtual stage, summing to `layers`.
  // Throws pf::ConfigError (key parallelism.layers_per_stage) when they do not fit.
  LayerSplit(int layers, int pp, int chunks, const std::vector<int>& explicit_counts);

  int vstages() const { return static_cast<int>(counts_.size()); }
  int pp() const { return pp_; }
  int chunks() const { return chunks_; }
  int vstage(int stage, int chunk) const { return chunk * pp_ + stage; }
  int first_layer(int vstage) const { return first_[static_cast<std::size_t>(vstage)]; }
  int layer_count(int vstage) const { return counts_[static_cast<std::size_t>(vstage)]; }
  // Layers held by pipeline stage `stage` over all its chunks.
  int stage_layers(int stage) const;

 private:
  int pp_, chunks_;
  std::vector<int> counts_;
  std::vector<int> first_;
};

}  // namespace pf::models::workload
