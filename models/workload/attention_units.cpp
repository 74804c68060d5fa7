// Attention block: norm, Q/K/V projections, (ring) attention, output
// projection, residual. Multi-head latent attention (DeepSeek-V2/V3) replaces
// the fused QKV GEMM by down-projections into query and key/value latents, their
// norms and per-head up-projections.
#include <algorithm>

#include "models/workload/layer_units.h"
#include "models/workload/param_count.h"

namespace pf::models::workload {
namespace {

AttentionShape block_shape(const RecipeContext& c) {
  const LocalDims& d = c.d;
  return {d.micro_batch, d.seq / d.cp, d.heads_local, d.kv_heads_local, d.head_dim, true, c.attention_window};
}

// Forward FLOPs of one cp block: Q (tokens x q) against a K/V block of seq/cp
// keys: Q K^T over the query/key width, P V over the value width.
// A sliding-window layer's queries see at most window + 1 keys (cp = 1).
double block_flops(const RecipeContext& c) {
  const LocalDims& d = c.d;
  std::int64_t keys = d.seq / d.cp;
  if (c.attention_window > 0) keys = std::min(keys, c.attention_window + 1);
  return 2.0 * static_cast<double>(d.tokens) * static_cast<double>(keys) *
         static_cast<double>(d.q_dim_local + d.attn_out_local);
}

std::int64_t kv_block_bytes(const RecipeContext& c) { return c.d.tokens * (c.d.k_dim_local + c.d.v_dim_local) * 2; }

// Unfused attention (Megatron before FlashAttention, CoreAttention with
// FusedScaleMaskSoftmax): for each of b x heads_local heads, S = Q K^T (s x s),
// P = softmax(scale, mask S) [and its dropout], O = P V. The full s x s scores
// are computed whatever the mask. Bytes of the softmax: read S, write P (16-bit),
// plus, with dropout, the dropped-out P and its 1-byte mask; with
// training.fused_elementwise false, eager PyTorch's separate mask, softmax and
// dropout kernels instead (eager_kernels.cpp).
int unfused_attention_fwd(UnitBuilder& b, const RecipeContext& c, DepRef ready, bool recompute) {
  const LocalDims& d = c.d;
  const std::int64_t heads = d.micro_batch * d.heads_local, s = d.seq, hd = d.head_dim;
  const double softmax_tensors = c.arch.dropout ? 3.5 : 2.0;
  int scores = b.batched_gemm(OpKind::attn_scores_fwd, heads, s, s, hd, {ready}, recompute);
  int probs = b.rows(OpKind::attn_softmax_fwd, heads * s, s, softmax_tensors, 5, {DepRef::op(scores)}, 0, recompute);
  return b.batched_gemm(OpKind::attn_context_fwd, heads, s, hd, s, {DepRef::op(probs)}, recompute);
}

// Its backward: dP = dO V^T and dV = P^T dO; dS = softmax'(P, dP); dQ = dS K
// and dK = dS^T Q. The softmax backward reads P and dP and writes dS (and
// reads the dropout mask).
int unfused_attention_bwd(UnitBuilder& b, const RecipeContext& c, DepRef grad) {
  const LocalDims& d = c.d;
  const std::int64_t heads = d.micro_batch * d.heads_local, s = d.seq, hd = d.head_dim;
  const double softmax_tensors = c.arch.dropout ? 3.5 : 3.0;
  int dprobs = b.batched_gemm(OpKind::attn_context_dgrad, heads, s, s, hd, {grad}, false);
  b.batched_gemm(OpKind::attn_context_wgrad, heads, s, hd, s, {grad}, false);
  int dscores = b.rows(OpKind::attn_softmax_bwd, heads * s, s, softmax_tensors, 4, {DepRef::op(dprobs)});
  b.batched_gemm(OpKind::attn_scores_wgrad, heads, s, hd, s, {DepRef::op(dscores)}, false);
  return b.batched_gemm(OpKind::attn_scores_dgrad, heads, s, hd, s, {DepRef::op(dscores)}, false);
}

// Blocks 0..cp-1; exchange j passes on the block used by step j while step j
// computes, so step j+1 waits only for it. Returns the last attention op.
int ring_attention(UnitBuilder& b, const RecipeContext& c, int start, bool backward) {
  if (c.unfused_attention) {  // cp = 1 (checked with the configuration)
    if (!backward) return unfused_attention_fwd(b, c, DepRef::op(start), false);
    if (c.recomputes(RecomputeModules::core_attn)) unfused_attention_fwd(b, c, DepRef::op(start), true);
    return unfused_attention_bwd(b, c, DepRef::op(start));
  }
  int cp = c.d.cp;
  int prev_exchange = -1;
  int last = start;
  std::int64_t bytes = kv_block_bytes(c) * (backward ? 2 : 1);  // backward also carries dK, dV
  for (int j = 0; j < cp; ++j) {
    DepRef ready = j == 0 ? DepRef::op(start) : DepRef::op(prev_exchange);
    int exchange = -1;
    if (j < cp - 1) exchange = b.collective(OpKind::cp_kv_exchange, GroupKind::cp, bytes, {ready});
    if (!backward) {
      last = b.attention(OpKind::attention_fwd, block_shape(c), block_flops(c), {ready});
    } else {
      if (c.recomputes(RecomputeModules::core_attn)) b.attention(OpKind::attention_fwd, block_shape(c), block_flops(c), {ready}, true);
      last = b.attention(OpKind::attention_bwd, block_shape(c), 2.0 * block_flops(c), {ready});
    }
    prev_exchange = exchange;
  }
  return last;
}

// Rotary position embeddings (models without learned positions): one fused
// kernel rotates Q and K in place, reading and writing both (Megatron-Core's
// fused RoPE, on by default; --no-rope-fusion runs it unfused); its backward
// rotates dQ and dK back. With MLA only the decoupled rope part rotates: every
// head's qk_rope_head_dim query columns and the one shared rope key.
std::int64_t rotary_width(const RecipeContext& c) {
  const LocalDims& d = c.d;
  if (c.arch.learned_positions) return 0;
  if (d.mla) return d.heads_local * d.rope_dim + d.rope_dim;
  return d.q_dim_local + d.k_dim_local;
}

int rotary(UnitBuilder& b, const RecipeContext& c, OpKind kind, int after) {
  const std::int64_t width = rotary_width(c);
  if (width == 0) return after;
  // A pair of elements turns by (cos, sin): 6 FLOPs per pair.
  return b.rows(kind, c.d.tokens, width, 2, 3, {DepRef::op(after)});
}

// model.qk_norm (Qwen3, OLMo 2): Megatron-Core's SelfAttention normalises the
// queries and then the keys per head (q_layernorm, k_layernorm: one norm
// kernel each over the local heads' columns) between the QKV projection and
// RoPE; the backward runs their gradients after RoPE's. Returns the last op.
int qk_norms(UnitBuilder& b, const RecipeContext& c, OpKind kind, int after) {
  const LocalDims& d = c.d;
  if (!c.model.qk_norm || d.mla) return after;
  const bool fwd = kind == OpKind::norm_fwd;
  const double tensors = fwd ? 2 : 3, flops = fwd ? 5 : 8;
  // Their weights (a head_dim vector each) count with the QKV projection (layer_params).
  int q = b.rows(kind, d.tokens, d.q_dim_local, tensors, flops, {DepRef::op(after)});
  return b.rows(kind, d.tokens, d.k_dim_local, tensors, flops, {DepRef::op(q)});
}

// Q, K, V from the (gathered) norm output; returns the op attention waits for.
int projections_fwd(UnitBuilder& b, const RecipeContext& c, DepRef local, DepRef gathered) {
  const LocalDims& d = c.d;
  std::int64_t h = d.hidden;
  if (!d.mla) {
    return gathered_gemm(b, c, OpKind::qkv_fwd, local, gathered, d.tokens,
                         d.q_dim_local + d.k_dim_local + d.v_dim_local, h);
  }
  // MLA's projections are priced whole; under TP overlap they start on the local shard.
  const DepRef x = c.tp_overlap() ? local : gathered;
  if (d.q_lora > 0) {
    int down = b.gemm(OpKind::qkv_fwd, d.tokens, d.q_lora, h, {x});
    int norm = b.rows(OpKind::norm_fwd, d.tokens, d.q_lora, 2, 5, {DepRef::op(down)});
    b.gemm(OpKind::qkv_fwd, d.tokens, d.q_dim_local, d.q_lora, {DepRef::op(norm)});
  } else {
    b.gemm(OpKind::qkv_fwd, d.tokens, d.q_dim_local, h, {x});
  }
  int down = b.gemm(OpKind::qkv_fwd, d.tokens, d.kv_lora + d.rope_dim, h, {x});
  int norm = b.rows(OpKind::norm_fwd, d.tokens, d.kv_lora, 2, 5, {DepRef::op(down)});
  return b.gemm(OpKind::qkv_fwd, d.tokens, d.attn_out_local + d.heads_local * (d.qk_head - d.rope_dim), d.kv_lora,
                {DepRef::op(norm)});
}

// recompute_modules mla_up_proj: the attention backward first rebuilds the
// queries, keys and values it reads from the saved latents (Megatron-Core's
// MLA up-projections and their rotary part); returns the op it waits for.
int recomputed_up_projections(UnitBuilder& b, const RecipeContext& c, int after) {
  const LocalDims& d = c.d;
  if (!c.recomputes(RecomputeModules::mla_up_proj) || !d.mla) return after;
  const int first = b.size();
  if (d.q_lora > 0) b.gemm(OpKind::qkv_fwd, d.tokens, d.q_dim_local, d.q_lora, {DepRef::op(after)});
  int kv = b.gemm(OpKind::qkv_fwd, d.tokens, d.attn_out_local + d.heads_local * (d.qk_head - d.rope_dim), d.kv_lora,
                  {DepRef::op(after)});
  int out = rotary(b, c, OpKind::rope_fwd, kv);
  b.mark_recompute(first, b.size());
  return out;
}

// Input gradients of the projections; returns the op producing dx.
int projections_dgrad(UnitBuilder& b, const RecipeContext& c, DepRef grad) {
  const LocalDims& d = c.d;
  std::int64_t h = d.hidden;
  if (!d.mla) return b.gemm(OpKind::qkv_dgrad, d.tokens, h, d.q_dim_local + d.k_dim_local + d.v_dim_local, {grad});
  std::int64_t kv_up_n = d.attn_out_local + d.heads_local * (d.qk_head - d.rope_dim);
  int up = b.gemm(OpKind::qkv_dgrad, d.tokens, d.kv_lora, kv_up_n, {grad});
  int norm = b.rows(OpKind::norm_bwd, d.tokens, d.kv_lora, 3, 8, {DepRef::op(up)});
  int last = b.gemm(OpKind::qkv_dgrad, d.tokens, h, d.kv_lora + d.rope_dim, {DepRef::op(norm)});
  if (d.q_lora > 0) {
    int qup = b.gemm(OpKind::qkv_dgrad, d.tokens, d.q_lora, d.q_dim_local, {grad});
    int qnorm = b.rows(OpKind::norm_bwd, d.tokens, d.q_lora, 3, 8, {DepRef::op(qup)});
    last = b.gemm(OpKind::qkv_dgrad, d.tokens, h, d.q_lora, {DepRef::op(qnorm)});
  } else {
    last = b.gemm(OpKind::qkv_dgrad, d.tokens, h, d.q_dim_local, {grad});
  }
  return last;
}

// Weight gradients: from the attention-output gradient and the saved input x.
void projections_wgrad(UnitBuilder& b, const RecipeContext& c, DepRef grad, DepRef x, const LayerParams& p) {
  const LocalDims& d = c.d;
  std::int64_t h = d.hidden;
  if (!d.mla) {
    b.gemm(OpKind::qkv_wgrad, h, d.q_dim_local + d.k_dim_local + d.v_dim_local, d.tokens, {grad, x}, p.qkv);
    return;
  }
  MlaParams m = mla_params(d);
  std::int64_t kv_up_n = d.attn_out_local + d.heads_local * (d.qk_head - d.rope_dim);
  b.gemm(OpKind::qkv_wgrad, d.kv_lora, kv_up_n, d.tokens, {grad}, m.kv_up);
  b.gemm(OpKind::qkv_wgrad, h, d.kv_lora + d.rope_dim, d.tokens, {grad, x}, m.kv_down);
  if (d.q_lora > 0) {
    b.gemm(OpKind::qkv_wgrad, d.q_lora, d.q_dim_local, d.tokens, {grad}, m.q_up);
    b.gemm(OpKind::qkv_wgrad, h, d.q_lora, d.tokens, {grad, x}, m.q_down);
  } else {
    b.gemm(OpKind::qkv_wgrad, h, d.q_dim_local, d.tokens, {grad, x}, m.q_up);
  }
}

}  // namespace

int attention_block_fwd(UnitBuilder& b, const RecipeContext& c, DepRef in) {
  const LocalDims& d = c.d;
  std::int64_t h = d.hidden;
  int norm = b.rows(OpKind::norm_fwd, d.tokens_sp, h, 2, 5, {in});
  int src = norm;
  if (d.sp) src = b.collective(OpKind::tp_all_gather, GroupKind::tp, c.gather_bytes_tokens(), {DepRef::op(norm)});
  // With TP comm overlap the projections start on the local shard while the gather streams in.
  const int first_projection = b.size();
  int projected = projections_fwd(b, c, DepRef::op(norm), DepRef::op(src));
  const int last_projection = b.size() - 1;
  int qkv = rotary(b, c, OpKind::rope_fwd, qk_norms(b, c, OpKind::norm_fwd, projected));
  int attn = ring_attention(b, c, qkv, false);
  if (c.tp_overlap()) b.also_wait(first_projection, last_projection, src);
  int proj = b.gemm(OpKind::attn_proj_fwd, d.tokens, h, d.attn_out_local, {DepRef::op(attn)});
  int out = proj;
  if (c.tp() && c.tp_overlap()) {
    // The reduce-scatter takes the GEMM's output chunk by chunk; what follows
    // waits for the last chunk's.
    out = pipelined_reduce_scatter(b, c, attn, proj);
  } else if (c.tp()) {
    OpKind k = d.sp ? OpKind::tp_reduce_scatter : OpKind::tp_all_reduce;
    out = b.collective(k, GroupKind::tp, c.act_bytes_tokens(), {DepRef::op(proj)});
  }
  // Bias, dropout and residual add, fused as in Megatron.
  return b.rows(OpKind::residual_fwd, d.tokens_sp, h, 3, 3, {DepRef::op(out)});
}

int attention_block_bwd(UnitBuilder& b, const RecipeContext& c, DepRef grad) {
  const LocalDims& d = c.d;
  std::int64_t h = d.hidden;
  LayerParams p = layer_params(c.model, d, false);
  int res = b.rows(OpKind::residual_bwd, d.tokens_sp, h, 3, 2, {grad});
  res = recomputed_norm(b, c, res);
  int src = res;
  if (d.sp) src = b.collective(OpKind::tp_all_gather, GroupKind::tp, c.gather_bytes_tokens(), {DepRef::op(res)});
  int dproj = gathered_gemm(b, c, OpKind::attn_proj_dgrad, DepRef::op(res), DepRef::op(src), d.tokens, d.attn_out_local, h);
  b.gemm(OpKind::attn_proj_wgrad, d.attn_out_local, h, d.tokens, {DepRef::op(src)}, p.proj);
  int attn = qk_norms(b, c, OpKind::norm_bwd,
                      rotary(b, c, OpKind::rope_bwd, ring_attention(b, c, recomputed_up_projections(b, c, dproj), true)));
  if (c.tp_overlap()) b.also_wait(dproj, dproj, src);
  // Sequence parallelism saved the projections' input sharded: gather it
  // again for the weight gradients, overlapping the input-gradient GEMMs.
  int regather = -1;
  if (d.sp) regather = b.collective(OpKind::tp_all_gather, GroupKind::tp, c.gather_bytes_tokens(), {DepRef::op(attn)});
  int dx = projections_dgrad(b, c, DepRef::op(attn));
  int out = dx;
  if (c.tp()) {
    OpKind k = d.sp ? OpKind::tp_reduce_scatter : OpKind::tp_all_reduce;
    // The input gradient's reduction follows its GEMM and overlaps the weight
    // gradients after it (Megatron's async grad-input reduce-scatter; TE's bulk
    // `qkv_wgrad` overlap under TP communication overlap).
    out = b.collective(k, GroupKind::tp, c.act_bytes_tokens(), {DepRef::op(dx)});
  }
  projections_wgrad(b, c, DepRef::op(attn), DepRef::op(regather >= 0 ? regather : attn), p);
  return b.rows(OpKind::norm_bwd, d.tokens_sp, h, 3, 8, {DepRef::op(out)}, p.norm);
}

}  // namespace pf::models::workload
