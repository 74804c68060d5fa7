// Parameter counts, whole model and per GPU, from the architecture alone.
// Every weight is listed once here; the op generator takes the size of each
// weight gradient from the same functions, so DP buckets, ZeRO sharding and the
// memory model agree by construction.
#pragma once

#include <cstdint>

#include "models/spec/model_spec.h"
#include "models/workload/model_dims.h"

namespace pf::models::workload {

// One transformer layer's weights as held by one GPU (or the whole layer when
// `dims` is unsplit). In a MoE layer fc1/fc2 are the shared experts (zero if
// none) and the routed experts are expert_fc1/expert_fc2 of the local experts.
struct LayerParams {
  std::int64_t qkv = 0, proj = 0, fc1 = 0, fc2 = 0;
  std::int64_t norm = 0;  // one of the layer's two norms
  std::int64_t router = 0;
  std::int64_t expert_fc1 = 0, expert_fc2 = 0;

  std::int64_t expert() const { return expert_fc1 + expert_fc2; }
  std::int64_t dense() const { return qkv + proj + fc1 + fc2 + 2 * norm + router; }
  std::int64_t total() const { return dense() + expert(); }
};

LayerParams layer_params(const ModelSpec& model, const LocalDims& dims, bool moe);

// Multi-head latent attention's projections (DeepSeek-V2/V3), per GPU: the
// down-projections into the query and key/value latents (with their norms) are
// kept whole on every tensor-parallel rank, the up-projections split by head.
// Their sum is LayerParams::qkv of an MLA layer.
struct MlaParams {
  std::int64_t q_down = 0, q_up = 0, kv_down = 0, kv_up = 0;
  std::int64_t total() const { return q_down + q_up + kv_down + kv_up; }
};
MlaParams mla_params(const LocalDims& dims);

// One multi-token-prediction module (DeepSeek-V3): norms of the hidden state
// and of the next token's embedding, their projection 2h -> h (kept whole on
// every tensor-parallel rank), a transformer layer and its own final norm. It
// shares the embedding and the LM head with the main model.
struct MtpParams {
  LayerParams layer;
  std::int64_t extra = 0;  // norms and the 2h -> h projection
  std::int64_t dense() const { return layer.dense() + extra; }
  std::int64_t total() const { return layer.total() + extra; }
};
MtpParams mtp_params(const ModelSpec& model, const LocalDims& dims);
// MTP layers follow the last layer and are of its kind.
bool mtp_is_moe(const ModelSpec& model);

// Input side: word embedding shard (+ learned positions, replicated over tp).
std::int64_t embedding_params(const ModelSpec& model, const LocalDims& dims);
std::int64_t final_norm_params(const ModelSpec& model, const LocalDims& dims);
// Output projection shard; 0 when tied to the embedding on the same GPU.
std::int64_t lm_head_params(const ModelSpec& model, const LocalDims& dims, bool separate_copy);

struct ParameterCount {
  std::int64_t total = 0;   // every weight once (tied embeddings counted once)
  std::int64_t active = 0;  // used per token: top_k of the routed experts
  // Multi-token-prediction modules, trained but not part of the published
  // totals (DeepSeek-V3: 671 B main model + 14 B MTP).
  std::int64_t mtp = 0;
};

// max_positions: learned position table length (the training sequence length).
ParameterCount count_parameters(const ModelSpec& model, std::int64_t max_positions);

}  // namespace pf::models::workload
