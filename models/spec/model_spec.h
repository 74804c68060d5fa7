// What a transformer model is, as the workload, cost and memory models need it.
// Plain data: io/ fills it from YAML (io/config/README.md, model) and validates it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace pf::models {

// The MLP's activation. Gated ones (SwiGLU, GeGLU, quick-GEGLU) multiply the
// activated gate by a second projection: fc1 is twice as wide. ReLU and
// squared ReLU (Nemotron, Primer) are priced as GeLU is: one elementwise
// kernel over the ffn width each way. quick_geglu is GPT-OSS's gate,
// x * sigmoid(1.702 x) times (linear + 1) (Megatron-Core quick_gelu with
// glu_linear_offset 1), priced as SwiGLU; in routed experts Megatron-Core
// runs it through weighted_bias_quick_geglu_impl, whose host synchronisation
// training.host_sync_on_quick_geglu models.
enum class Activation { gelu, swiglu, geglu, relu, squared_relu, quick_geglu };
inline bool is_gated(Activation a) {
  return a == Activation::swiglu || a == Activation::geglu || a == Activation::quick_geglu;
}
enum class Norm { layernorm, rmsnorm };

struct MoeSpec {
  int num_experts = 0;
  int top_k = 0;
  std::int64_t expert_ffn_hidden_size = 0;
  int shared_experts = 0;             // always-on experts (DeepSeek); 0 for Mixtral
  int first_dense_layers = 0;          // leading layers with a dense FFN (DeepSeek-V3: 3)
  // Group-limited routing (DeepSeek-V3 "node-limited routing"): experts are split
  // into num_expert_groups groups and each token picks its top_k experts from at
  // most topk_groups groups, which bounds how many EP ranks a token reaches.
  // 0 = unrestricted routing (Mixtral).
  int num_expert_groups = 0;           // DeepSeek-V3: 8
  int topk_groups = 0;                 // DeepSeek-V3: 4
};

// Multi-head latent attention (DeepSeek-V2/V3): K and V are compressed into a
// kv_lora_rank latent (plus a shared rotary key), Q into q_lora_rank, and each
// head's query/key is qk_nope_head_dim + qk_rope_head_dim wide, its value
// v_head_dim wide. Changes attention's parameter count and FLOPs, and the
// activation memory of K/V.
struct MlaSpec {
  std::int64_t q_lora_rank = 0;        // 0 = queries are not compressed
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_nope_head_dim = 0;
  std::int64_t qk_rope_head_dim = 0;
  std::int64_t v_head_dim = 0;
};

// Sliding-window (local) attention (Mistral, Gemma 2/3, GPT-OSS): a windowed
// layer's query sees only the `size` keys before it and itself, as
// FlashAttention's window_size = (size, 0) and Megatron-Core's window_size;
// every `full_every`-th layer (1-based: full_every, 2 full_every, ...) attends
// to the whole sequence, as Megatron-Core's window_attn_skip_freq; 0 = every
// layer windowed.
struct SlidingWindowSpec {
  std::int64_t size = 0;
  int full_every = 0;
};

struct ModelSpec {
  std::string name;
  int layers = 0;
  std::int64_t hidden_size = 0;
  std::int64_t ffn_hidden_size = 0;
  int num_attention_heads = 0;
  int num_kv_heads = 0;               // == heads: multi-head; < heads: grouped-query attention
  std::int64_t head_dim = 0;          // 0 = hidden_size / num_attention_heads
  std::int64_t vocab_size = 0;
  Activation activation = Activation::gelu;
  // Clamp of a gated activation's two halves before the gate (GPT-OSS: 7, the
  // gate from above, the linear half both ways; Megatron-Core
  // activation_func_clamp_value, Hugging Face swiglu_limit); 0 = none.
  double activation_clamp = 0;
  Norm norm = Norm::layernorm;
  bool tied_embeddings = false;       // LM head shares the input embedding matrix
  std::optional<MoeSpec> moe;
  std::optional<MlaSpec> mla;          // set: attention is MLA instead of (grouped-query) MHA
  int mtp_layers = 0;                  // multi-token-prediction modules after the last layer (DeepSeek-V3: 1)
  std::optional<SlidingWindowSpec> sliding_window;  // set: some or all layers attend locally
  bool qk_norm = false;                // per-head norm of queries and keys before RoPE (Qwen3, OLMo 2)

  std::int64_t effective_head_dim() const {
    return head_dim > 0 ? head_dim : hidden_size / num_attention_heads;
  }
};

}  // namespace pf::models
