// Sizes the op generator, FLOP counter and memory model share: the model's
// architecture traits and one micro-batch's per-GPU dimensions after tensor,
// context, sequence and expert parallelism have split it.
#pragma once

#include <cstdint>

#include "models/spec/model_spec.h"
#include "models/spec/training_spec.h"

namespace pf::models::workload {

// Details the model file does not state, taken from the architecture family:
// GPT-style models (LayerNorm) have linear biases, learned absolute position
// embeddings and dropout (GPT-3 paper; Megatron's GPT defaults); Llama-style
// models (RMSNorm: Llama 2/3, Mixtral, DeepSeek) have none of the three and use
// rotary positions. A gated MLP (SwiGLU) has two input projections.
struct ArchTraits {
  bool bias = false;
  bool learned_positions = false;
  bool dropout = false;
  bool gated_mlp = false;
  bool clamped_glu = false;  // a gated activation with activation_clamp: routed experts clamp both halves first
  bool quick_geglu = false;  // GPT-OSS's gate: routed experts copy its linear offset to the GPU each forward
  std::int64_t norm_params_per_dim = 1;  // LayerNorm: scale and shift; RMSNorm: scale
};
ArchTraits arch_traits(const ModelSpec& model);

// Whether transformer layer `layer` has a routed-expert MLP.
bool layer_is_moe(const ModelSpec& model, int layer);
// The keys before its diagonal that layer `layer` (0-based) attends to: the
// sliding window's size, or 0 for a full-attention layer.
std::int64_t layer_attention_window(const ModelSpec& model, int layer);

struct LocalDims {
  // unsplit sizes
  std::int64_t micro_batch = 0, seq = 0, hidden = 0, head_dim = 0, heads = 0, kv_heads = 0;
  std::int64_t ffn = 0, vocab = 0;
  int tp = 1, cp = 1, ep = 1;
  bool sp = false;
  // per GPU, one micro-batch
  std::int64_t tokens = 0;      // micro_batch * seq / cp: rows inside tensor-parallel regions
  std::int64_t tokens_sp = 0;   // tokens / tp under sequence parallelism (norms, dropout), else tokens
  std::int64_t heads_local = 0, kv_heads_local = 0;  // kv heads replicated when kv_heads < tp
  // Widths per GPU of Q, K and V, and of the attention output entering the
  // output projection (GQA: kv_heads x head_dim for K and V; MLA: per-head
  // query/key width qk_nope + qk_rope and value width v_head_dim, all heads).
  std::int64_t q_dim_local = 0, k_dim_local = 0, v_dim_local = 0, attn_out_local = 0;
  std::int64_t ffn_local = 0, fc1_local = 0;          // fc1 is twice as wide when gated
  std::int64_t vocab_local = 0;                       // ceil(vocab / tp): vocab-parallel shard
  // multi-head latent attention (zero when the model has none)
  bool mla = false;
  std::int64_t q_lora = 0, kv_lora = 0, qk_head = 0, rope_dim = 0, v_head = 0;
  // mixture of experts (zero when the model has none)
  std::int64_t experts = 0, top_k = 0, experts_local = 0;
  std::int64_t expert_ffn_local = 0, expert_fc1_local = 0;  // expert widths / expert_tp
  // The routed tokens are gathered over the TP group before the experts (and
  // reduce-scattered after): sequence parallelism with experts sharded over
  // TP (expert_tp = tp > 1). With expert_tp = 1 each GPU's experts take the
  // tokens dispatched to them as they are.
  bool expert_tp_gather = false;
  std::int64_t shared_ffn_local = 0, shared_fc1_local = 0;  // always-on experts, tensor-parallel like a dense MLP
  std::int64_t routed_tokens = 0;    // tokens_sp * top_k: token copies this GPU dispatches (and, balanced, receives)
  // Token copies the busiest EP rank receives: routed_tokens x training.moe_load_imbalance. Every rank is
  // priced as that one: the layer's combine waits for it, so its experts and its share of the all-to-alls
  // set the pace (what each GPU sends, permutes and unpermutes stays routed_tokens).
  std::int64_t received_tokens = 0;
  std::int64_t expert_rows = 0;  // this GPU's expert GEMM rows: received_tokens (x tp if expert_tp_gather)
};

LocalDims local_dims(const ModelSpec& model, const ParallelismSpec& par, const TrainingSpec& train);

// The same model unsplit (tp = cp = ep = 1): for totals.
LocalDims global_dims(const ModelSpec& model, std::int64_t micro_batch, std::int64_t seq);

}  // namespace pf::models::workload
