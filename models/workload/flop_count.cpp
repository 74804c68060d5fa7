#include "models/workload/flop_count.h"

#include <algorithm>
#include <vector>

#include "models/workload/layer_split.h"
#include "models/workload/model_dims.h"

namespace pf::models::workload {

namespace {

// Query and key (= value) widths of standard (grouped-query) attention.
struct AttentionWidths {
  double q = 0, kv = 0;
};

AttentionWidths attention_widths(const ModelSpec& model) {
  const double d = static_cast<double>(model.effective_head_dim());
  const int kv_heads = model.num_kv_heads > 0 ? model.num_kv_heads : model.num_attention_heads;
  return {static_cast<double>(model.num_attention_heads) * d, static_cast<double>(kv_heads) * d};
}

// Attention projections and products of one sequence.
LayerFlops attention_flops(const ModelSpec& model, double s) {
  double h = static_cast<double>(model.hidden_size);
  double heads = static_cast<double>(model.num_attention_heads);
  LayerFlops f;
  if (model.mla) {
    // DeepSeek-V2 MLA: query and key/value latents, their up-projections,
    // keys of qk_nope + qk_rope per head, values of v_head_dim.
    const MlaSpec& a = *model.mla;
    double qk = static_cast<double>(a.qk_nope_head_dim + a.qk_rope_head_dim);
    double v = static_cast<double>(a.v_head_dim);
    double q_lora = static_cast<double>(a.q_lora_rank), kv_lora = static_cast<double>(a.kv_lora_rank);
    double q_weights = q_lora > 0 ? h * q_lora + q_lora * heads * qk : h * heads * qk;
    double kv_weights = h * (kv_lora + static_cast<double>(a.qk_rope_head_dim)) +
                        kv_lora * heads * (static_cast<double>(a.qk_nope_head_dim) + v);
    f.gemm = 2.0 * s * (q_weights + kv_weights + heads * v * h);
    f.attention = 2.0 * s * s * heads * (qk + v);  // Q K^T over qk, P V over v
    return f;
  }
  const auto [q, kv] = attention_widths(model);
  // QKV and output projections: weights h(q + 2kv) and q h.
  f.gemm = 2.0 * s * (h * (q + 2.0 * kv) + q * h);
  // Scores Q K^T and the weighted sum P V, each 2 s^2 q.
  f.attention = 4.0 * s * s * q;
  return f;
}

// torchtitan's op-level selective checkpointing re-runs, of a dense layer's
// forward, the second, fourth and sixth nn.Linear calls: wk, wo, and w3 or a
// two-matrix MLP's fc2, 2 s h (kv + q + ffn) either way (op_selective_recompute.h).
double op_selective_recomputed(const ModelSpec& model, double s) {
  const double h = static_cast<double>(model.hidden_size);
  const auto [q, kv] = attention_widths(model);
  return 2.0 * s * h * (kv + q + static_cast<double>(model.ffn_hidden_size));
}

// recompute_modules mla_up_proj re-runs the query and key/value
// up-projections (latents to per-head queries, keys' nope part and values).
double mla_up_projection_flops(const ModelSpec& model, double s) {
  if (!model.mla) return 0;
  const MlaSpec& a = *model.mla;
  const double heads = static_cast<double>(model.num_attention_heads);
  const double qk = static_cast<double>(a.qk_nope_head_dim + a.qk_rope_head_dim);
  const double q_up = a.q_lora_rank > 0 ? static_cast<double>(a.q_lora_rank) * heads * qk : 0;
  const double kv_up = static_cast<double>(a.kv_lora_rank) * heads *
                       static_cast<double>(a.qk_nope_head_dim + a.v_head_dim);
  return 2.0 * s * (q_up + kv_up);
}

// Forward GEMM FLOPs of one sequence through the MLP side of a layer: the
// dense MLP, or a MoE layer's router, routed (top_k per token) and shared
// experts.
struct MlpFlops {
  double dense = 0, router = 0, routed = 0, shared = 0;
};

MlpFlops mlp_flops(const ModelSpec& model, bool moe, double s) {
  const double h = static_cast<double>(model.hidden_size);
  const double gate = arch_traits(model).gated_mlp ? 2.0 : 1.0;
  MlpFlops f;
  if (!moe) {
    const double ffn = static_cast<double>(model.ffn_hidden_size);
    f.dense = 2.0 * s * (h * gate * ffn + ffn * h);
    return f;
  }
  const MoeSpec& m = *model.moe;
  const double fe = static_cast<double>(m.expert_ffn_hidden_size);
  const double expert = h * gate * fe + fe * h;
  f.router = 2.0 * s * h * m.num_experts;
  f.routed = 2.0 * s * m.top_k * expert;
  f.shared = 2.0 * s * m.shared_experts * expert;
  return f;
}

// What selective recomputation re-runs of one layer's forward: the core
// attention (Korthikanti et al. 2022), MLA's up-projection GEMMs, the
// checkpointed dense MLP, MoE layer or shared experts; norms and
// activations are not counted as FLOPs.
double selective_recomputed(const ModelSpec& model, const TrainingSpec& train, bool moe, const LayerFlops& f) {
  const double s = static_cast<double>(train.seq_length);
  double r = 0;
  if (train.recomputes(RecomputeModules::core_attn)) r += f.attention;
  if (train.recomputes(RecomputeModules::mla_up_proj)) r += mla_up_projection_flops(model, s);
  const MlpFlops m = mlp_flops(model, moe, s);
  if (train.recomputes(RecomputeModules::mlp)) r += m.dense;
  if (train.recomputes(RecomputeModules::moe)) {
    r += m.router + m.routed + m.shared;
  } else if (train.recomputes(RecomputeModules::shared_experts)) {
    r += m.shared;
  }
  return r;
}

// Each layer's place in its virtual pipeline chunk (what
// training.recompute_num_layers counts).
std::vector<int> index_in_chunk(const ModelSpec& model, const ParallelismSpec& par) {
  const LayerSplit split(model.layers, par.pp, par.chunks(), par.layers_per_stage);
  std::vector<int> index(static_cast<std::size_t>(model.layers), 0);
  for (int v = 0; v < split.vstages(); ++v) {
    for (int i = 0; i < split.layer_count(v); ++i) index[static_cast<std::size_t>(split.first_layer(v) + i)] = i;
  }
  return index;
}

}  // namespace

LayerFlops layer_forward_flops(const ModelSpec& model, int layer, std::int64_t seq) {
  double s = static_cast<double>(seq);
  LayerFlops f = attention_flops(model, s);
  // A sliding-window layer's queries see at most window + 1 keys: it counts
  // s x min(s, window + 1) score pairs where a full layer counts s x s (both
  // without the causal triangle's discount, so a window as long as the
  // sequence counts as a full layer).
  if (const std::int64_t window = layer_attention_window(model, layer); window > 0) {
    f.attention *= std::min(s, static_cast<double>(window) + 1.0) / s;
  }
  const MlpFlops m = mlp_flops(model, layer_is_moe(model, layer), s);
  f.gemm += m.dense + m.router + m.routed + m.shared;
  return f;
}

double lm_head_forward_flops(const ModelSpec& model, std::int64_t seq) {
  return 2.0 * static_cast<double>(seq) * static_cast<double>(model.hidden_size) *
         static_cast<double>(model.vocab_size);
}

FlopCount count_flops(const ModelSpec& model, const ParallelismSpec& par, const TrainingSpec& train) {
  double forward = lm_head_forward_flops(model, train.seq_length);
  double recomputed = 0;
  const std::vector<int> index = index_in_chunk(model, par);
  for (int layer = 0; layer < model.layers; ++layer) {
    LayerFlops f = layer_forward_flops(model, layer, train.seq_length);
    forward += f.total();
    // Full recomputation re-runs the forward of every layer (or of each
    // chunk's first recompute_num_layers), not the LM head; selective re-runs
    // the modules of recompute_modules.
    if (train.layer_recompute(index[static_cast<std::size_t>(layer)]) == Recompute::full) recomputed += f.total();
    recomputed += selective_recomputed(model, train, layer_is_moe(model, layer), f);
    if (train.recompute == Recompute::selective_op) {
      recomputed += op_selective_recomputed(model, static_cast<double>(train.seq_length));
    }
  }
  // Multi-token prediction: a layer like the last, the 2h -> h projection and
  // one more pass through the shared LM head per module. Full recomputation
  // does not checkpoint these modules; selective still replays their attention.
  for (int i = 0; i < model.mtp_layers; ++i) {
    LayerFlops f = layer_forward_flops(model, model.layers - 1, train.seq_length);
    double h = static_cast<double>(model.hidden_size);
    forward += f.total() + 2.0 * static_cast<double>(train.seq_length) * 2.0 * h * h +
               lm_head_forward_flops(model, train.seq_length);
    recomputed += selective_recomputed(model, train, layer_is_moe(model, model.layers - 1), f);
  }
  double sequences = static_cast<double>(train.global_batch_size);
  FlopCount c;
  c.model_flops = 3.0 * forward * sequences;  // backward = 2 x forward
  c.hardware_flops = c.model_flops + recomputed * sequences;
  double gpus = static_cast<double>(par.tp) * par.pp * par.dp * par.cp;
  c.model_flops_per_gpu = c.model_flops / gpus;
  c.hardware_flops_per_gpu = c.hardware_flops / gpus;
  return c;
}

}  // namespace pf::models::workload
