// The op recipes of the model's pieces, per GPU and micro-batch, following
// Megatron-LM's dataflow (Shoeybi et al. 2019; Korthikanti et al. 2022):
//  - tensor parallelism: column-parallel QKV / fc1, row-parallel proj / fc2;
//    without sequence parallelism the row-parallel output is all-reduced in
//    forward and the column-parallel input gradient all-reduced in backward;
//    with it, all-gather before the column-parallel GEMM and reduce-scatter
//    after the row-parallel one, mirrored in backward, plus the backward
//    re-gather of the saved (sharded) input for the weight gradient;
//  - backward of a linear layer: input gradient (dgrad), launch its collective,
//    weight gradient (wgrad) overlapping it, and the next op waits on it;
//  - context parallelism: attention in cp blocks, the K/V block passed around
//    the cp ring while the previous block computes (ring attention);
//  - experts: router, permute, all-to-all dispatch over ep, all-gather over tp
//    (expert tensor parallelism = tp), expert GEMMs, reduce-scatter, all-to-all
//    combine, unpermute (Megatron-Core's alltoall token dispatcher).
#pragma once

#include "models/spec/model_spec.h"
#include "models/spec/training_spec.h"
#include "models/workload/model_dims.h"
#include "models/workload/op_template.h"
#include "models/workload/unit_builder.h"

namespace pf::models::workload {

struct RecipeContext {
  const ModelSpec& model;
  LocalDims d;
  ArchTraits arch;
  // What Megatron's selective recomputation re-runs in the backward
  // (training.recompute_modules; no module unless recompute is selective):
  // core_attn re-runs the core attention inside the layer's backward;
  // layernorm, moe_act and mla_up_proj rebuild the output they discarded
  // first; mlp, moe and shared_experts re-run the checkpointed submodule.
  RecomputeModules recompute{0};
  bool unfused_attention = false;  // training.attention: unfused (cp = 1, no MLA)
  bool fused_cross_entropy = false;  // training.fused_cross_entropy
  KernelStyle kernels;               // fp8 quantisation, eager elementwise kernels
  bool tp_comm_overlap = false;      // training.tp_comm_overlap (applies with sequence parallelism)
  bool flex_dispatcher = false;      // training.moe_token_dispatcher: flex (DeepEP / HybridEP)
  CudaGraphScope graphs;             // training.cuda_graph_scope: modules replayed from CUDA graphs
  OffloadModules offload{};          // training.offload_modules: module inputs kept in host memory
  std::int64_t attention_window = 0;  // the layer's sliding window (model.sliding_window); 0 = full
  // fp8 training, unless training.moe_router_padding_for_fp8 or HybridEP pads: the routed experts' rows are
  // copied into per-expert blocks padded to the fp8 GEMMs' row alignment and back (moe_units.cpp, moe_pad_*)
  bool fp8_expert_padding = false;
  // training.cross_entropy_fusion_impl te (with fused_cross_entropy): Transformer Engine's Triton loss
  bool te_cross_entropy = false;
  // training.overlap_moe_expert_parallel_comm: the shared experts run beside the routed ones, after the
  // dispatch (MCore's fine_grained_callables submodule_moe_forward), and their backward after the combine's
  bool a2a_overlap = false;
  // training.delay_wgrad_compute: a layer's weight-gradient GEMMs follow its module's input gradients
  bool delay_wgrad = false;
  bool router_fusion = false;  // training.moe_router_fusion: Transformer Engine's fused router kernels
  bool tp_overlap() const { return tp_comm_overlap && d.sp; }
  bool recomputes(RecomputeModules::Module m) const { return recompute.has(m); }
  bool tp() const { return d.tp > 1; }
  std::int64_t act_bytes_tokens() const { return d.tokens * d.hidden * 2; }  // one full hidden tensor
  // What a sequence-parallel all-gather in a transformer layer moves: under
  // fp8 the frameworks cast the local shard and gather one byte per element.
  // Transformer Engine: the norm writes uint8 `ln_out` and
  // gather_along_first_dim moves it (TE 1.8 layernorm_linear.py); the output
  // gradient is cast, then gathered (base.py grad_output_preprocess); the
  // saved fp8 shards are re-gathered for the weight gradients. torchao's
  // float8 tensor parallelism (torchtitan): PrepareFloat8ModuleInput and
  // Float8ColwiseParallel cast the input before its all-gather, and
  // Float8RowwiseParallel casts the output gradient before the backward's
  // (float8_tensor_parallel.py, _NoopFwToFloat8BwDynamic). Reduce-scatters
  // carry the GEMMs' 16-bit outputs.
  std::int64_t gather_bytes_tokens() const {
    return kernels.fp8_quantize_bytes > 0 ? d.tokens * d.hidden : act_bytes_tokens();
  }
};

// Pieces (each returns the index of its output op in the builder).
int attention_block_fwd(UnitBuilder& b, const RecipeContext& c, DepRef in);
int attention_block_bwd(UnitBuilder& b, const RecipeContext& c, DepRef grad);
// The norm a block's backward rebuilds first under recompute_modules
// layernorm (its output was discarded after the forward); `after` otherwise.
int recomputed_norm(UnitBuilder& b, const RecipeContext& c, int after);
// The tensor-parallel MLP between the norm and the residual: fc1, activation,
// fc2. Widths per GPU and the parameter counts of fc1 and fc2 (param_count.h).
struct MlpWidths {
  std::int64_t ffn_local = 0, fc1_local = 0;
  std::int64_t fc1_params = 0, fc2_params = 0;
};
int mlp_core_fwd(UnitBuilder& b, const RecipeContext& c, DepRef normed, const MlpWidths& w);
int mlp_core_bwd(UnitBuilder& b, const RecipeContext& c, DepRef grad, const MlpWidths& w);
// Under TP communication overlap, a forward row-parallel GEMM's reduce-scatter
// in Transformer Engine's pipeline of kTpOverlapRsChunks chunks: all but the
// last chunk's overlap the GEMM (from `gemm_input` on), the last one follows
// `gemm` (pipelined_reduce_scatter.cpp). Returns the last one.
inline constexpr std::int64_t kTpOverlapRsChunks = 4;
int pipelined_reduce_scatter(UnitBuilder& b, const RecipeContext& c, int gemm_input, int gemm);
// A column-parallel GEMM reading `gathered`, the sequence-parallel all-gather
// of `local` (the same op without sequence parallelism): under TP
// communication overlap Transformer Engine's ring exchange (the gather on the
// copy engines, the GEMM shard by shard from `local`), else after the gather
// (gathered_gemm.cpp). Returns its last op.
int gathered_gemm(UnitBuilder& b, const RecipeContext& c, OpKind kind, DepRef local, DepRef gathered, std::int64_t M,
                  std::int64_t N, std::int64_t K);
int moe_block_fwd(UnitBuilder& b, const RecipeContext& c, DepRef in);
int moe_block_bwd(UnitBuilder& b, const RecipeContext& c, DepRef grad);
// norm, fc1/act/fc2 (mlp_core), residual; and its backward.
int dense_mlp_block_fwd(UnitBuilder& b, const RecipeContext& c, DepRef in);
int dense_mlp_block_bwd(UnitBuilder& b, const RecipeContext& c, DepRef grad);
// Final norm, vocab-parallel LM head and cross entropy; backward from the loss
// (head_grad_elems: weight gradients the head's wgrad finishes).
int head_block_fwd(UnitBuilder& b, const RecipeContext& c, DepRef in);
int head_block_bwd(UnitBuilder& b, const RecipeContext& c, std::int64_t head_grad_elems);

// Makes the unit's first op wait for its parameters (DepKind::param).
void wait_for_params(Unit& u);

// Whole units.
Unit layer_forward_unit(const RecipeContext& c, bool moe);
Unit layer_backward_unit(const RecipeContext& c, bool moe);
// Full recomputation: the forward re-run inside backward (phase bwd, flagged).
Unit layer_recompute_unit(const RecipeContext& c, bool moe);
Unit embedding_forward_unit(const RecipeContext& c);
Unit embedding_backward_unit(const RecipeContext& c);
// head_elems: LM head weight held on the last stage (0 when tied to the
// embedding on the same GPU); copy_elems: see edge_units.cpp.
Unit head_forward_unit(const RecipeContext& c, std::int64_t head_elems, std::int64_t copy_elems);
Unit head_backward_unit(const RecipeContext& c, std::int64_t head_elems, std::int64_t copy_elems);
// One multi-token-prediction module: next-token embedding, norms, the 2h -> h
// projection, a transformer layer like the last, and the shared LM head's loss.
Unit mtp_forward_unit(const RecipeContext& c);
Unit mtp_backward_unit(const RecipeContext& c);

}  // namespace pf::models::workload
