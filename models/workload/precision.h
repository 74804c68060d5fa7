// Bytes per element of what training keeps in memory and moves over the
// network, under mixed precision (Micikevicius et al. 2018; ZeRO, Rajbhandari
// et al. 2020, section 3.1): 16-bit weights and gradients, fp32 master weights
// plus Adam's two moments = K = 12 bytes of optimizer state per parameter.
//
// Gradients are kept and reduced in the 16-bit training dtype, as in the ZeRO
// paper's accounting (2 + 2 + K bytes per parameter). Megatron-LM with bf16
// accumulates and reduces them in fp32 instead (4 bytes; its distributed
// optimizer table: 18 bytes/param without sharding); that is one constant here.
// fp8 training (Transformer Engine) keeps 16-bit weights and casts per GEMM.
#pragma once

#include "models/spec/hardware_spec.h"

namespace pf::models::workload {

inline constexpr int kActivationBytes = 2;  // stored activations (Korthikanti et al. count 16-bit)

inline int param_bytes(Dtype d) { return (d == Dtype::fp32 || d == Dtype::tf32) ? 4 : 2; }
inline int grad_bytes(Dtype d) { return param_bytes(d); }
// fp32 master copy (only under mixed precision) + Adam momentum and variance.
inline int optimizer_bytes(Dtype d) { return param_bytes(d) == 4 ? 8 : 12; }

}  // namespace pf::models::workload
