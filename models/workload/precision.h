// Bytes per element of what training keeps in memory and moves over the
// network, under mixed precision (Micikevicius et al. 2018; ZeRO, Rajbhandari
// et al. 2020, section 3.1): 16-bit weights and gradients, fp32 master weights
// plus Adam's two moments = K = 12 bytes of optimizer state per parameter by
// default (training.optimizer_states lowers them).
//
// Main gradients follow training.grad_reduce_dtype (models/spec/training_spec.h):
// by default Megatron-LM's, fp32 for bf16 and fp8 training (4 bytes; its
// distributed optimizer table: 18 bytes/param without sharding), 16-bit for
// fp16 (the ZeRO paper's 2 + 2 + K accounting). fp8 training (Transformer
// Engine) keeps 16-bit weights and casts per GEMM.
#pragma once

#include "models/spec/hardware_spec.h"
#include "models/spec/training_spec.h"

namespace pf::models::workload {

inline constexpr int kActivationBytes = 2;  // stored activations (Korthikanti et al. count 16-bit)

inline int param_bytes(Dtype d) { return (d == Dtype::fp32 || d == Dtype::tf32) ? 4 : 2; }
inline int grad_bytes(Dtype d, GradReduceDtype reduce) {
  switch (reduce) {
    case GradReduceDtype::fp32: return 4;
    case GradReduceDtype::bf16:
    case GradReduceDtype::fp16: return 2;
    case GradReduceDtype::automatic: break;
  }
  return d == Dtype::fp16 ? 2 : 4;  // Megatron: fp32 main grads for bf16 (and fp8) training
}
// HBM bytes per element of quantising one 16-bit GEMM input to fp8 on the
// way into an fp8 GEMM: read it (2), write the fp8 copy (1) and the
// transposed fp8 copy the weight-gradient GEMM reads (1): Transformer
// Engine's fused cast-transpose, as Hopper's fp8 tensor cores take only the
// TN layout. tensorwise scaling first reduces the tensor's amax in a pass of
// its own (another 2); mxfp8 and blockwise add their scales (one fp32 per
// 128 elements or one byte per 32, each for both copies); delayed scaling's
// amax comes out of the cast itself. Weights are cast once per step
// (Transformer Engine keeps them across micro-batches), not counted here.
inline double fp8_quantize_bytes(Fp8Recipe recipe) {
  switch (recipe) {
    case Fp8Recipe::delayed: return 4.0;
    case Fp8Recipe::tensorwise: return 6.0;
    case Fp8Recipe::mxfp8: return 4.0 + 2.0 / 32.0;
    case Fp8Recipe::blockwise: return 4.0 + 2.0 * 4.0 / 128.0;
  }
  return 4.0;
}

// Kernels that quantise one GEMM input: Transformer Engine v2.9's tensorwise
// (current) scaling reduces the amax in a kernel of its own before the cast,
// the other recipes cast in one. A grouped GEMM's inputs (TE GroupedLinear,
// grouped_linear.py:127; csrc/extensions/cast.cpp:132-148) are cast by one
// fused multi-tensor kernel under delayed scaling and group by group under the
// others.
inline int fp8_quantize_kernels(Fp8Recipe recipe, std::int64_t groups) {
  if (recipe == Fp8Recipe::delayed) return 1;
  const int per_tensor = recipe == Fp8Recipe::tensorwise ? 2 : 1;
  return per_tensor * static_cast<int>(groups);
}

inline int state_bytes(StateDtype s) {
  switch (s) {
    case StateDtype::fp32: return 4;
    case StateDtype::bf16:
    case StateDtype::fp16: return 2;
    case StateDtype::fp8: return 1;
  }
  return 4;
}
// Adam's state per parameter (training.optimizer_states): the master copy
// (only under mixed precision: fp32 weights are their own master; 2 bytes
// when kept as remainders of bf16 weights) + the first and second moments.
// 12 bytes by default with 16-bit weights, 8 with fp32 weights.
inline int optimizer_bytes(const TrainingSpec& t) {
  const OptimizerStates& s = t.optimizer_states;
  const int master = param_bytes(t.dtype) == 4 ? 0 : s.param_remainders ? 2 : state_bytes(s.main_params);
  return master + state_bytes(s.exp_avg) + state_bytes(s.exp_avg_sq);
}

}  // namespace pf::models::workload
