// FLOPs of one training iteration, counted from the architecture (not from the
// op stream, so the two can check each other). Matmuls only (GEMMs and the
// attention score/value products), multiply-add = 2 FLOPs, attention over the
// full seq x seq matrix: the convention of Megatron's MFU formula
// (Narayanan et al. 2021, appendix: 72 B s l h^2 (1 + s/6h + V/12lh)).
#pragma once

#include <cstdint>

#include "models/spec/model_spec.h"
#include "models/spec/training_spec.h"

namespace pf::models::workload {

struct FlopCount {
  double model_flops = 0;     // forward + backward, no recomputation; whole cluster, per iteration
  double hardware_flops = 0;  // plus the forward work recomputation repeats
  double model_flops_per_gpu = 0;
  double hardware_flops_per_gpu = 0;
};

// Forward FLOPs of one sequence of `seq` tokens through transformer layer `layer`,
// split into its GEMMs and its attention products.
struct LayerFlops {
  double gemm = 0;
  double attention = 0;
  double total() const { return gemm + attention; }
};
LayerFlops layer_forward_flops(const ModelSpec& model, int layer, std::int64_t seq);
// Forward FLOPs of the LM head for one sequence.
double lm_head_forward_flops(const ModelSpec& model, std::int64_t seq);

FlopCount count_flops(const ModelSpec& model, const ParallelismSpec& par, const TrainingSpec& train);

}  // namespace pf::models::workload
