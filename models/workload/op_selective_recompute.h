// torchtitan's op-level selective activation checkpointing
// (training.recompute: selective_op) as the recomputation unit a layer's
// backward runs first.
//
// torchtitan wraps each transformer block in a checkpoint whose policy keeps
// the outputs of aten.mm, of SDPA's flash and memory-efficient attention
// kernels, of reduce-scatters and of max (fp8 amax), except every second
// aten.mm counted per block forward, and recomputes everything else in the
// backward (torchtitan/models/llama3/parallelize_llama.py, `_save_list` and
// `_custom_policy`; the same at commits 9dec370, 820504e and e7c0cae, the
// ones the validation rows name). Counted in the block's order of nn.Linear
// calls -- wq, wk, wv, wo, then w1, w3, w2 for a gated MLP
// (w2(silu(w1 x) * w3 x)) or fc1, fc2 -- the recomputed matmuls are wk, wo
// and w3 (fc2 without a gate). fp8 linears count alike: torchao's
// Float8Linear calls aten.mm on its fp8 tensor subclass, which the policy's
// dispatch mode sees before the subclass turns it into torch._scaled_mm; the
// memory torchtitan measured agrees (llama3_h100_202412_torchtitan.md,
// Table 1: 77.0 GiB with torch.compile, 76.8 GiB adding Float8, where
// recomputing every fp8 matmul would have saved ~20 GiB of kept outputs).
#pragma once

#include "models/workload/layer_units.h"

namespace pf::models::workload {

// The layer's forward less what the policy keeps: the attention kernels
// (and their context-parallel exchanges), the reduce-scatters and the kept
// matmuls; the fused QKV and gate/up GEMMs shrink to their recomputed
// columns. Flagged as recomputation, in the backward phase, waiting for no
// gradient. Dense layers with standard attention only (the configuration
// check rejects MoE and latent attention).
Unit op_selective_recompute_unit(const RecipeContext& c);

}  // namespace pf::models::workload
