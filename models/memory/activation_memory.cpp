#include "models/memory/activation_memory.h"

#include <algorithm>

#include "models/workload/param_count.h"

namespace pf::models::memory {
namespace {

using workload::LocalDims;

double d(std::int64_t v) { return static_cast<double>(v); }

// Score matrix per GPU: heads_local x local queries x all keys, 16-bit softmax
// output plus, with dropout, its 8-bit mask and 16-bit output.
double score_bytes(const ModelSpec& model, const LocalDims& x) {
  double per_elem = workload::arch_traits(model).dropout ? 5.0 : 2.0;
  return per_elem * d(x.heads_local) * d(x.tokens) * d(x.seq);
}

// 1 when the model applies dropout (its 8-bit masks are kept), else 0.
double dropout_masks(const ModelSpec& model) { return workload::arch_traits(model).dropout ? 1.0 : 0.0; }

// Bytes per element of a tensor kept only as a linear layer's input.
double linear_input(const ActivationOptions& o) { return o.fp8_linear_inputs ? 1.0 : 2.0; }

// Whether selective recomputation drops module m's output.
bool drops(Recompute rc, const ActivationOptions& o, RecomputeModules::Module m) {
  return rc == Recompute::selective && o.modules.has(m);
}

// The norm output a block's first GEMM reads; recompute_modules layernorm
// rebuilds it. `per_elem`: 2, or the linear layer's FP8 copy where only a
// linear layer keeps it (linear_input).
double norm_output_bytes(const LocalDims& x, Recompute rc, const ActivationOptions& o, double per_elem) {
  return drops(rc, o, RecomputeModules::layernorm) ? 0 : per_elem * d(x.tokens_sp) * d(x.hidden);
}

// What a checkpointed MLP or MoE layer (recompute_modules mlp, moe) keeps:
// the norm's input and output (the submodule's input) and the dropout mask.
double submodule_input_bytes(const LocalDims& x, double drop, Recompute rc, const ActivationOptions& o,
                             double norm_out_per_elem) {
  return 2 * d(x.tokens_sp) * d(x.hidden) + norm_output_bytes(x, rc, o, norm_out_per_elem) +
         drop * d(x.tokens_sp) * d(x.hidden);
}

double attention_block_bytes(const ModelSpec& model, const LocalDims& x, Recompute rc, const ActivationOptions& o) {
  double drop = dropout_masks(model);
  // Q, K and V; MLA's come from up-projections that mla_up_proj re-runs.
  double qkv = 2 * d(x.tokens) * (d(x.q_dim_local) + d(x.k_dim_local) + d(x.v_dim_local));
  if (x.mla && drops(rc, o, RecomputeModules::mla_up_proj)) qkv = 0;
  const double in = linear_input(o);
  double bytes = 2 * d(x.tokens_sp) * d(x.hidden)                            // norm input
                 + norm_output_bytes(x, rc, o, in)                           // QKV input (norm output)
                 + qkv                                                       // Q, K and V
                 + in * d(x.tokens) * d(x.attn_out_local)                   // projection input
                 + drop * d(x.tokens_sp) * d(x.hidden);                     // dropout mask
  // MLA latents before their norms (the key latent carries the rotary part)
  // and after them (the up-projections' inputs).
  if (x.mla) {
    bytes += 2 * d(x.tokens) * (d(x.q_lora) + d(x.kv_lora) + d(x.rope_dim)) +
             in * d(x.tokens) * (d(x.q_lora) + d(x.kv_lora));
  }
  // model.qk_norm: the query and key norms keep their 16-bit inputs (the projection's Q and K columns).
  if (model.qk_norm && !x.mla) bytes += 2 * d(x.tokens) * (d(x.q_dim_local) + d(x.k_dim_local));
  if (!drops(rc, o, RecomputeModules::core_attn)) {
    bytes += o.flash_attention ? 4 * d(x.heads_local) * d(x.tokens) : score_bytes(model, x);
  }
  return bytes;
}

double dense_mlp_bytes(const LocalDims& x, double drop, Recompute rc, const ActivationOptions& o) {
  const double in = linear_input(o);
  // A checkpointed MLP keeps its 16-bit input, not a linear layer's copy.
  if (drops(rc, o, RecomputeModules::mlp)) return submodule_input_bytes(x, drop, rc, o, 2);
  return 2 * d(x.tokens_sp) * d(x.hidden)     // norm input
         + norm_output_bytes(x, rc, o, in)    // fc1 input (norm output)
         + 2 * d(x.tokens) * d(x.fc1_local)   // activation input
         + in * d(x.tokens) * d(x.ffn_local)  // fc2 input
         + drop * d(x.tokens_sp) * d(x.hidden);
}

// Routed experts see expert_rows token copies: the busiest EP rank's, whose
// memory is the peak (training.moe_load_imbalance; 1: balanced). Since
// Megatron-Core 0.12 the routing probabilities travel with the permuted
// tokens and weigh the experts' activation (TEGroupedMLP's weighted SwiGLU),
// so the unpermute that sums a token's expert outputs keeps nothing for its
// backward but the index map (token_dispatcher.py, unpermute without probs;
// before 0.12 it weighed them and kept the expert outputs).
// A clamped gate (model.activation_clamp, GPT-OSS) keeps two copies of fc1's
// output: the clamps' autograd keeps their input, and the fused activation
// (Megatron-Core weighted_bias_quick_geglu_impl) the clamped concatenation.
double moe_mlp_bytes(const ModelSpec& model, const LocalDims& x, double drop, Recompute rc,
                     const ActivationOptions& o) {
  // The norm output is the router's input: 16-bit whatever the dtype.
  if (drops(rc, o, RecomputeModules::moe)) return submodule_input_bytes(x, drop, rc, o, 2);
  const double in = linear_input(o);
  const double act_out = drops(rc, o, RecomputeModules::moe_act) ? 0 : in * d(x.expert_rows) * d(x.expert_ffn_local);
  // Offloaded inputs (training.offload_modules) wait in host memory instead.
  const double fc1_in = o.offload.has(OffloadModules::expert_fc1) ? 0 : in * d(x.expert_rows) * d(x.hidden);
  const double act_in = o.offload.has(OffloadModules::moe_act) ? 0 : 2 * d(x.expert_rows) * d(x.expert_fc1_local);
  const double clamped_copy = workload::arch_traits(model).clamped_glu ? act_in : 0;
  double bytes = 2 * d(x.tokens_sp) * d(x.hidden)                 // norm input
                 + norm_output_bytes(x, rc, o, 2)                 // router input (norm output)
                 + 4 * d(x.tokens_sp) * d(x.experts)              // fp32 router probabilities
                 + fc1_in                                         // expert fc1 input
                 + act_in                                         // activation input
                 + clamped_copy                                   // its clamped copy (GPT-OSS)
                 + act_out                                        // fc2 input (activation output)
                 + drop * d(x.tokens_sp) * d(x.hidden);
  // Shared experts read the same norm output; they add their own activations
  // unless checkpointed (shared_experts).
  if (!drops(rc, o, RecomputeModules::shared_experts)) {
    bytes += 2 * d(x.tokens) * d(x.shared_fc1_local) + in * d(x.tokens) * d(x.shared_ffn_local);
  }
  return bytes;
}

// torchtitan's op-level selective checkpointing (op_selective_recompute.h)
// keeps the block's input, the outputs of the first, third, fifth and
// seventh nn.Linear calls (wq, wv, and w1 and w2 of a gated MLP or fc1 of a
// two-matrix one), attention's output with its fp32 log-sum-exp per head and
// row, and the reduce-scatters' outputs.
double op_selective_bytes(const ModelSpec& model, const LocalDims& x) {
  double bytes = 2 * d(x.tokens_sp) * d(x.hidden)                               // block input
                 + 2 * d(x.tokens) * d(x.attn_out_local)                        // attention output
                 + 4 * d(x.heads_local) * d(x.tokens);                          // its log-sum-exp
  if (x.tp > 1 && x.sp) bytes += 2 * 2 * d(x.tokens_sp) * d(x.hidden);          // two reduce-scatter outputs
  bytes += 2 * d(x.tokens) * (d(x.q_dim_local) + d(x.v_dim_local) + d(x.ffn_local));  // wq, wv, w1 / fc1
  if (workload::arch_traits(model).gated_mlp) bytes += 2 * d(x.tokens) * d(x.hidden);  // w2, before its reduction
  return bytes;
}

}  // namespace

double layer_activation_bytes(const ModelSpec& model, const LocalDims& x, bool moe, Recompute rc,
                              const ActivationOptions& o) {
  if (rc == Recompute::full) return 2 * d(x.tokens_sp) * d(x.hidden);
  if (rc == Recompute::selective_op && !moe) return op_selective_bytes(model, x);
  double drop = dropout_masks(model);
  return attention_block_bytes(model, x, rc, o) +
         (moe ? moe_mlp_bytes(model, x, drop, rc, o) : dense_mlp_bytes(x, drop, rc, o));
}

double recompute_working_bytes(const ModelSpec& model, const LocalDims& x, bool moe, Recompute rc,
                               const ActivationOptions& o) {
  // Re-running (part of) the forward rebuilds what the layer's backward reads.
  if (rc == Recompute::full || rc == Recompute::selective_op) {
    return layer_activation_bytes(model, x, moe, Recompute::none, o);
  }
  // Selective: the largest tensor the backward rebuilds is alive at once.
  double working = 0;
  if (drops(rc, o, RecomputeModules::core_attn) && !o.flash_attention) working = score_bytes(model, x);
  if (drops(rc, o, RecomputeModules::layernorm)) working = std::max(working, 2 * d(x.tokens_sp) * d(x.hidden));
  if (moe && drops(rc, o, RecomputeModules::moe_act)) {
    working = std::max(working, 2 * d(x.expert_rows) * d(x.expert_ffn_local));
  }
  if (x.mla && drops(rc, o, RecomputeModules::mla_up_proj)) {
    working = std::max(working, 2 * d(x.tokens) * (d(x.q_dim_local) + d(x.k_dim_local) + d(x.v_dim_local)));
  }
  // A re-run submodule rebuilds everything it did not keep.
  const double drop = dropout_masks(model);
  const ActivationOptions kept{o.flash_attention, {}, o.fp8_linear_inputs, o.offload};
  if (!moe && drops(rc, o, RecomputeModules::mlp)) {
    working = std::max(working, dense_mlp_bytes(x, drop, Recompute::none, kept) - dense_mlp_bytes(x, drop, rc, o));
  }
  if (moe && (drops(rc, o, RecomputeModules::moe) || drops(rc, o, RecomputeModules::shared_experts))) {
    working = std::max(working, moe_mlp_bytes(model, x, drop, Recompute::none, kept) - moe_mlp_bytes(model, x, drop, rc, o));
  }
  return working;
}

double mtp_activation_bytes(const ModelSpec& model, const LocalDims& x, Recompute rc, const ActivationOptions& o) {
  // Not checkpointed under full recomputation: the module keeps everything.
  Recompute kept = rc == Recompute::full || rc == Recompute::selective_op ? Recompute::none : rc;
  double inputs = 2 * d(x.tokens_sp) * d(x.hidden) * 2    // the two norms' inputs
                  + 2 * d(x.tokens_sp) * 2 * d(x.hidden);  // the projection's input [h; e]
  return inputs + layer_activation_bytes(model, x, workload::mtp_is_moe(model), kept, o) +
         head_activation_bytes(model, x);
}

double embedding_activation_bytes(const ModelSpec& model, const LocalDims& x) {
  return workload::arch_traits(model).dropout ? d(x.tokens_sp) * d(x.hidden) : 0;
}

double head_activation_bytes(const ModelSpec&, const LocalDims& x) {
  return 2 * d(x.tokens_sp) * d(x.hidden)             // final norm input
         + 2 * d(x.tokens_sp) * d(x.hidden)           // LM head input (re-gathered in backward under SP)
         + 4 * d(x.tokens) * d(x.vocab_local);        // fp32 logits for the cross entropy
}

}  // namespace pf::models::memory
