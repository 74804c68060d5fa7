#include "models/workload/model_dims.h"

#include <algorithm>
#include <cmath>

namespace pf::models::workload {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// The busiest EP rank's token copies: `mean` x `imbalance`, rounded up to
// 16 rows per local expert (the padding Megatron's fp8 grouped GEMMs apply,
// --moe-router-padding-for-fp8), so that an imbalance moves the experts'
// GEMMs by their extra rows and not by a 16-byte misalignment of the split
// that the balanced split does not have. An imbalance of 1 changes nothing.
std::int64_t busiest_share(std::int64_t mean, double imbalance, std::int64_t local_experts) {
  if (imbalance <= 1.0) return mean;
  const auto tile = 16 * std::max<std::int64_t>(1, local_experts);
  const auto rows = static_cast<std::int64_t>(std::ceil(static_cast<double>(mean) * imbalance));
  return ceil_div(rows, tile) * tile;  // >= rows > mean
}

}  // namespace

ArchTraits arch_traits(const ModelSpec& model) {
  ArchTraits t;
  bool gpt_style = model.norm == Norm::layernorm;
  t.bias = gpt_style;
  t.learned_positions = gpt_style;
  t.dropout = gpt_style;
  t.gated_mlp = is_gated(model.activation);
  t.clamped_glu = t.gated_mlp && model.activation_clamp > 0;
  t.quick_geglu = model.activation == Activation::quick_geglu;
  t.norm_params_per_dim = gpt_style ? 2 : 1;
  return t;
}

bool layer_is_moe(const ModelSpec& model, int layer) {
  return model.moe.has_value() && model.moe->num_experts > 0 && layer >= model.moe->first_dense_layers;
}

std::int64_t layer_attention_window(const ModelSpec& model, int layer) {
  if (!model.sliding_window || model.sliding_window->size <= 0) return 0;
  const int every = model.sliding_window->full_every;
  return every > 0 && (layer + 1) % every == 0 ? 0 : model.sliding_window->size;
}

LocalDims local_dims(const ModelSpec& model, const ParallelismSpec& par, const TrainingSpec& train) {
  LocalDims d;
  std::int64_t gate = arch_traits(model).gated_mlp ? 2 : 1;
  d.micro_batch = train.micro_batch_size;
  d.seq = train.seq_length;
  d.hidden = model.hidden_size;
  d.head_dim = model.num_attention_heads > 0 ? model.effective_head_dim() : 0;  // validated by WorkloadPlan
  d.heads = model.num_attention_heads;
  d.kv_heads = model.num_kv_heads > 0 ? model.num_kv_heads : model.num_attention_heads;
  d.ffn = model.ffn_hidden_size;
  d.vocab = model.vocab_size;
  d.tp = par.tp;
  d.cp = par.cp;
  d.ep = par.ep;
  d.sp = par.sequence_parallel && par.tp > 1;
  d.tokens = d.micro_batch * d.seq / d.cp;
  d.tokens_sp = d.sp ? d.tokens / d.tp : d.tokens;
  d.heads_local = d.heads / d.tp;
  d.kv_heads_local = std::max<std::int64_t>(1, d.kv_heads / d.tp);
  d.q_dim_local = d.heads_local * d.head_dim;
  d.k_dim_local = d.kv_heads_local * d.head_dim;
  d.v_dim_local = d.k_dim_local;
  d.attn_out_local = d.q_dim_local;
  if (model.mla) {
    const MlaSpec& a = *model.mla;
    d.mla = true;
    d.q_lora = a.q_lora_rank;
    d.kv_lora = a.kv_lora_rank;
    d.rope_dim = a.qk_rope_head_dim;
    d.qk_head = a.qk_nope_head_dim + a.qk_rope_head_dim;
    d.v_head = a.v_head_dim;
    d.head_dim = d.qk_head;
    d.kv_heads = d.heads;  // every head decompresses its own key and value
    d.kv_heads_local = d.heads_local;
    d.q_dim_local = d.heads_local * d.qk_head;
    d.k_dim_local = d.q_dim_local;
    d.v_dim_local = d.heads_local * d.v_head;
    d.attn_out_local = d.v_dim_local;
  }
  d.ffn_local = d.ffn / d.tp;
  d.fc1_local = gate * d.ffn_local;
  d.vocab_local = ceil_div(d.vocab, d.tp);
  if (model.moe && model.moe->num_experts > 0) {
    const MoeSpec& m = *model.moe;
    d.experts = m.num_experts;
    d.top_k = m.top_k;
    d.experts_local = m.num_experts / d.ep;
    d.expert_ffn_local = m.expert_ffn_hidden_size / par.etp();
    d.expert_fc1_local = gate * d.expert_ffn_local;
    d.shared_ffn_local = m.shared_experts * m.expert_ffn_hidden_size / d.tp;
    d.shared_fc1_local = gate * d.shared_ffn_local;
    d.routed_tokens = d.tokens_sp * d.top_k;
    d.received_tokens = busiest_share(d.routed_tokens, train.moe_load_imbalance, d.experts_local);
    d.expert_tp_gather = d.sp && par.etp() > 1;
    d.expert_rows = d.received_tokens * (d.expert_tp_gather ? d.tp : 1);
  }
  return d;
}

LocalDims global_dims(const ModelSpec& model, std::int64_t micro_batch, std::int64_t seq) {
  TrainingSpec train;
  train.micro_batch_size = micro_batch;
  train.seq_length = seq;
  return local_dims(model, ParallelismSpec{}, train);
}

}  // namespace pf::models::workload
