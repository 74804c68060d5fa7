#include "io/config/model_parser.h"

#include "io/config/config_error.h"
#include "io/config/map_reader.h"

namespace pf::config {

namespace {

const EnumNames<models::Activation> kActivations{{"gelu", models::Activation::gelu},
                                                  {"swiglu", models::Activation::swiglu},
                                                  {"geglu", models::Activation::geglu},
                                                  {"relu", models::Activation::relu},
                                                  {"squared_relu", models::Activation::squared_relu},
                                                  {"quick_geglu", models::Activation::quick_geglu}};
const EnumNames<models::Norm> kNorms{{"layernorm", models::Norm::layernorm}, {"rmsnorm", models::Norm::rmsnorm}};

const ConfigNode& at(const MapReader& r, const char* key) { return nearest_node(r.node(), key); }

models::MoeSpec parse_moe(const ConfigNode& node, const models::ModelSpec& model) {
  MapReader r(node);
  models::MoeSpec moe;
  moe.num_experts = static_cast<int>(r.get_int("num_experts", 1, kIntMax));
  moe.top_k = static_cast<int>(r.get_int("top_k", 1, moe.num_experts));
  moe.expert_ffn_hidden_size = r.get_int_or("expert_ffn_hidden_size", model.ffn_hidden_size, 1, kInt64Max);
  moe.shared_experts = static_cast<int>(r.get_int_or("shared_experts", 0, 0, kIntMax));
  moe.first_dense_layers = static_cast<int>(r.get_int_or("first_dense_layers", 0, 0, model.layers - 1));
  moe.num_expert_groups = static_cast<int>(r.get_int_or("num_expert_groups", 0, 0, moe.num_experts));
  moe.topk_groups = static_cast<int>(r.get_int_or("topk_groups", 0, 0, moe.num_expert_groups));
  r.finish();

  if (moe.num_expert_groups > 0) {
    if (moe.num_experts % moe.num_expert_groups != 0) {
      fail_expected(at(r, "num_expert_groups"), "a divisor of num_experts (" + std::to_string(moe.num_experts) + ")");
    }
    if (moe.topk_groups == 0) {
      fail_at(node, "missing required key 'topk_groups' (an integer in [1, num_expert_groups]) when num_expert_groups is set");
    }
    // Each token's top_k experts must fit inside the groups it may use.
    const int reachable = moe.topk_groups * (moe.num_experts / moe.num_expert_groups);
    if (moe.top_k > reachable) {
      fail_expected(at(r, "top_k"), "at most topk_groups * experts per group (" + std::to_string(reachable) + ")",
                    std::to_string(moe.top_k));
    }
  } else if (moe.topk_groups != 0) {
    fail_expected(at(r, "topk_groups"), "0 or absent when num_expert_groups is not set");
  }
  return moe;
}

models::MlaSpec parse_mla(const ConfigNode& node) {
  MapReader r(node);
  models::MlaSpec mla;
  mla.q_lora_rank = r.get_int_or("q_lora_rank", 0, 0, kInt64Max);
  mla.kv_lora_rank = r.get_int("kv_lora_rank", 1, kInt64Max);
  mla.qk_nope_head_dim = r.get_int("qk_nope_head_dim", 1, kInt64Max);
  mla.qk_rope_head_dim = r.get_int_or("qk_rope_head_dim", 0, 0, kInt64Max);
  mla.v_head_dim = r.get_int("v_head_dim", 1, kInt64Max);
  r.finish();
  return mla;
}

models::SlidingWindowSpec parse_sliding_window(const ConfigNode& node, int layers) {
  MapReader r(node);
  models::SlidingWindowSpec w;
  w.size = r.get_int("size", 1, kInt64Max);
  w.full_every = static_cast<int>(r.get_int_or("full_every", 0, 0, layers));
  r.finish();
  return w;
}

void check_heads(MapReader& r, const models::ModelSpec& m) {
  if (m.num_attention_heads % m.num_kv_heads != 0) {
    fail_expected(at(r, "num_kv_heads"),
                  "a divisor of num_attention_heads (" + std::to_string(m.num_attention_heads) + ")",
                  std::to_string(m.num_kv_heads));
  }
  // Without an explicit head_dim, heads split hidden_size evenly.
  if (m.head_dim == 0 && m.hidden_size % m.num_attention_heads != 0) {
    fail_expected(at(r, "num_attention_heads"),
                  "a divisor of hidden_size (" + std::to_string(m.hidden_size) + "), or an explicit head_dim",
                  std::to_string(m.num_attention_heads));
  }
}

}  // namespace

models::ModelSpec parse_model(const ConfigNode& node) {
  MapReader r(node);
  models::ModelSpec m;
  m.name = r.get_string_or("name", "model");
  m.layers = static_cast<int>(r.get_int("layers", 1, kIntMax));
  m.hidden_size = r.get_int("hidden_size", 1, kInt64Max);
  m.ffn_hidden_size = r.get_int("ffn_hidden_size", 1, kInt64Max);
  m.num_attention_heads = static_cast<int>(r.get_int("num_attention_heads", 1, kIntMax));
  m.num_kv_heads = static_cast<int>(r.get_int_or("num_kv_heads", m.num_attention_heads, 1, m.num_attention_heads));
  m.head_dim = r.get_int_or("head_dim", 0, 1, kInt64Max);
  m.vocab_size = r.get_int("vocab_size", 1, kInt64Max);
  m.activation = r.get_enum_or("activation", models::Activation::gelu, kActivations);
  m.activation_clamp = r.get_double_or("activation_clamp", 0, NumberRange::non_negative());
  m.norm = r.get_enum_or("norm", models::Norm::layernorm, kNorms);
  m.tied_embeddings = r.get_bool_or("tied_embeddings", false);
  if (const ConfigNode* moe = r.find("moe")) m.moe = parse_moe(*moe, m);
  if (const ConfigNode* mla = r.find("mla")) m.mla = parse_mla(*mla);
  m.mtp_layers = static_cast<int>(r.get_int_or("mtp_layers", 0, 0, kIntMax));
  if (const ConfigNode* w = r.find("sliding_window")) m.sliding_window = parse_sliding_window(*w, m.layers);
  m.qk_norm = r.get_bool_or("qk_norm", false);
  if (m.qk_norm && m.mla) {
    fail_expected(at(r, "qk_norm"), "false with mla (multi-head latent attention normalises its own latents)",
                  "true");
  }
  if (m.activation_clamp > 0 && !models::is_gated(m.activation)) {
    fail_expected(at(r, "activation_clamp"), "0 or absent with a non-gated activation (the clamp acts on a gated "
                  "activation's two halves: swiglu, geglu or quick_geglu)");
  }
  r.finish();
  check_heads(r, m);
  return m;
}

}  // namespace pf::config
