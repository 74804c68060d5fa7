#include "models/workload/param_count.h"

namespace pf::models::workload {

LayerParams layer_params(const ModelSpec& model, const LocalDims& d, bool moe) {
  ArchTraits arch = arch_traits(model);
  std::int64_t bias = arch.bias ? 1 : 0;
  std::int64_t h = d.hidden;
  LayerParams p;
  std::int64_t qkv_out = d.q_dim_local + d.k_dim_local + d.v_dim_local;
  p.qkv = d.mla ? mla_params(d).total() : h * qkv_out + bias * qkv_out;
  // model.qk_norm: the query and key norms' weights (one head_dim vector each) count with the projection.
  if (model.qk_norm && !d.mla) p.qkv += 2 * arch.norm_params_per_dim * d.head_dim;
  // Row-parallel layers keep their bias whole on every tensor-parallel rank.
  p.proj = d.attn_out_local * h + bias * h;
  p.norm = arch.norm_params_per_dim * h;
  std::int64_t fc1 = moe ? d.shared_fc1_local : d.fc1_local;
  std::int64_t ffn = moe ? d.shared_ffn_local : d.ffn_local;
  if (ffn > 0) {
    p.fc1 = h * fc1 + bias * fc1;
    p.fc2 = ffn * h + bias * h;
  }
  if (moe) {
    p.router = h * d.experts;  // not split over tp (Megatron's TopKRouter)
    p.expert_fc1 = d.experts_local * (h * d.expert_fc1_local + bias * d.expert_fc1_local);
    p.expert_fc2 = d.experts_local * (d.expert_ffn_local * h + bias * h);
  }
  return p;
}

MlaParams mla_params(const LocalDims& d) {
  MlaParams p;
  std::int64_t h = d.hidden;
  // Latent norms (RMSNorm scales) are counted with the projection feeding them.
  if (d.q_lora > 0) {
    p.q_down = h * d.q_lora + d.q_lora;
    p.q_up = d.q_lora * d.q_dim_local;
  } else {
    p.q_up = h * d.q_dim_local;
  }
  p.kv_down = h * (d.kv_lora + d.rope_dim) + d.kv_lora;
  p.kv_up = d.kv_lora * d.heads_local * (d.qk_head - d.rope_dim + d.v_head);
  return p;
}

bool mtp_is_moe(const ModelSpec& model) { return layer_is_moe(model, model.layers - 1); }

MtpParams mtp_params(const ModelSpec& model, const LocalDims& d) {
  MtpParams p;
  p.layer = layer_params(model, d, mtp_is_moe(model));
  std::int64_t norm = arch_traits(model).norm_params_per_dim * d.hidden;
  p.extra = 3 * norm + 2 * d.hidden * d.hidden;
  return p;
}

std::int64_t embedding_params(const ModelSpec& model, const LocalDims& d) {
  std::int64_t positions = arch_traits(model).learned_positions ? d.seq * d.hidden : 0;
  return d.vocab_local * d.hidden + positions;
}

std::int64_t final_norm_params(const ModelSpec& model, const LocalDims& d) {
  return arch_traits(model).norm_params_per_dim * d.hidden;
}

std::int64_t lm_head_params(const ModelSpec& model, const LocalDims& d, bool separate_copy) {
  return (!model.tied_embeddings || separate_copy) ? d.vocab_local * d.hidden : 0;
}

ParameterCount count_parameters(const ModelSpec& model, std::int64_t max_positions) {
  LocalDims d = global_dims(model, 1, max_positions);
  ParameterCount c;
  std::int64_t outer = embedding_params(model, d) + final_norm_params(model, d) + lm_head_params(model, d, false);
  c.total = outer;
  c.active = outer;
  for (int layer = 0; layer < model.layers; ++layer) {
    bool moe = layer_is_moe(model, layer);
    LayerParams p = layer_params(model, d, moe);
    c.total += p.total();
    c.active += p.dense();
    if (moe) c.active += p.expert() / d.experts * d.top_k;
  }
  c.mtp = model.mtp_layers * mtp_params(model, d).total();
  return c;
}

}  // namespace pf::models::workload
