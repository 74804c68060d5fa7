// Bytes per element of what training keeps in memory and moves over the
// network, under mixed precision (Micikevicius et al. 2018; ZeRO, Rajbhandari
// et al. 2020, section 3.1): 16-bit weights and gradients, fp32 master weights
// plus Adam's two moments = K = 12 bytes of optimizer state per parameter.
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
// fp32 master copy (only under mixed precision) + Adam momentum and variance.
inline int optimizer_bytes(Dtype d) { return param_bytes(d) == 4 ? 8 : 12; }

}  // namespace pf::models::workload
