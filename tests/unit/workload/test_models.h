// Model specs built from published architecture numbers, for tests.
#pragma once

#include "models/spec/model_spec.h"
#include "models/spec/training_spec.h"

namespace pf::models::testing {

// GPT-3 175B: Brown et al. 2020, Table 2.1 (96 layers, d_model 12288, 96 heads
// of 128, context 2048, d_ff = 4 d_model); vocabulary 50257 padded to 51200 as
// in Narayanan et al. 2021 (Megatron-LM, section 5.1). Learned positions, biases.
inline ModelSpec gpt3_175b() {
  ModelSpec m;
  m.name = "gpt3-175b";
  m.layers = 96;
  m.hidden_size = 12288;
  m.ffn_hidden_size = 4 * 12288;
  m.num_attention_heads = 96;
  m.num_kv_heads = 96;
  m.vocab_size = 51200;
  m.activation = Activation::gelu;
  m.norm = Norm::layernorm;
  m.tied_embeddings = true;
  return m;
}

// Llama 3 405B: Llama 3 paper (Dubey et al. 2024), Table 3: 126 layers, model
// dimension 16384, FFN 53248, 128 heads, 8 key/value heads; vocabulary 128256
// (the released config.json); SwiGLU, RMSNorm, untied output layer.
inline ModelSpec llama3_405b() {
  ModelSpec m;
  m.name = "llama3-405b";
  m.layers = 126;
  m.hidden_size = 16384;
  m.ffn_hidden_size = 53248;
  m.num_attention_heads = 128;
  m.num_kv_heads = 8;
  m.vocab_size = 128256;
  m.activation = Activation::swiglu;
  m.norm = Norm::rmsnorm;
  return m;
}

// Mixtral 8x7B: Jiang et al. 2024, Table 1: dim 4096, 32 layers, head_dim 128,
// hidden_dim 14336, 32 heads, 8 kv heads, vocab 32000, 8 experts, top 2.
inline ModelSpec mixtral_8x7b() {
  ModelSpec m;
  m.name = "mixtral-8x7b";
  m.layers = 32;
  m.hidden_size = 4096;
  m.ffn_hidden_size = 14336;
  m.num_attention_heads = 32;
  m.num_kv_heads = 8;
  m.head_dim = 128;
  m.vocab_size = 32000;
  m.activation = Activation::swiglu;
  m.norm = Norm::rmsnorm;
  m.moe = MoeSpec{8, 2, 14336, 0, 0};
  return m;
}

// DeepSeek-V3: DeepSeek-V3 technical report (2024), section 4.2: 61 layers,
// hidden 7168, MLA with 128 heads, KV compression 512, query compression 1536,
// per-head dimension 128 plus 64 rotary; the first 3 FFNs dense (18432, from
// the released config.json), the rest MoE with 1 shared and 256 routed experts
// of 2048, 8 per token; multi-token prediction depth 1; vocabulary 129280.
inline ModelSpec deepseek_v3() {
  ModelSpec m;
  m.name = "deepseek-v3";
  m.layers = 61;
  m.hidden_size = 7168;
  m.ffn_hidden_size = 18432;
  m.num_attention_heads = 128;
  m.num_kv_heads = 128;
  m.head_dim = 128;
  m.vocab_size = 129280;
  m.activation = Activation::swiglu;
  m.norm = Norm::rmsnorm;
  m.mtp_layers = 1;
  m.mla = MlaSpec{1536, 512, 128, 64, 128};
  m.moe = MoeSpec{256, 8, 2048, 1, 3, 8, 4};
  return m;
}

// A small GPT (d_ff = 4h, multi-head attention) whose sizes divide by every
// split the tests use.
inline ModelSpec tiny_gpt(int layers = 4) {
  ModelSpec m;
  m.name = "tiny-gpt";
  m.layers = layers;
  m.hidden_size = 256;
  m.ffn_hidden_size = 1024;
  m.num_attention_heads = 8;
  m.num_kv_heads = 8;
  m.vocab_size = 1024;
  m.activation = Activation::gelu;
  m.norm = Norm::layernorm;
  m.tied_embeddings = true;
  return m;
}

// A small dense Llama-like model: grouped-query attention, SwiGLU, RMSNorm.
inline ModelSpec tiny_llama(int layers = 4) {
  ModelSpec m = tiny_gpt(layers);
  m.name = "tiny-llama";
  m.activation = Activation::swiglu;
  m.norm = Norm::rmsnorm;
  m.num_kv_heads = 2;
  m.tied_embeddings = false;
  return m;
}

// A small Mixtral-like MoE model.
inline ModelSpec tiny_moe(int layers = 4) {
  ModelSpec m = tiny_llama(layers);
  m.name = "tiny-moe";
  m.num_kv_heads = 4;
  m.moe = MoeSpec{4, 2, 512, 1, 1};
  return m;
}

// A small DeepSeek-like model: MLA, shared + routed experts, one MTP module.
inline ModelSpec tiny_deepseek(int layers = 4) {
  ModelSpec m = tiny_moe(layers);
  m.name = "tiny-deepseek";
  m.num_kv_heads = 8;
  m.head_dim = 32;
  m.mtp_layers = 1;
  m.mla = MlaSpec{64, 32, 32, 16, 32};
  return m;
}

inline TrainingSpec small_training(std::int64_t global_batch = 16, std::int64_t seq = 128) {
  TrainingSpec t;
  t.global_batch_size = global_batch;
  t.micro_batch_size = 1;
  t.seq_length = seq;
  t.grad_bucket_mb = 0.25;
  return t;
}

}  // namespace pf::models::testing
