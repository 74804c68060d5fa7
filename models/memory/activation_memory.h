// Activation memory a GPU keeps for the backward pass, per transformer layer
// and micro-batch, after Korthikanti et al. 2022 ("Reducing Activation
// Recomputation in Large Transformer Models", section 4), generalised to
// grouped-query attention, gated MLPs, experts and context parallelism:
//   no parallelism            s b h (34 + 5 a s / h)
//   tensor parallel t         s b h (10 + 24/t + 5 a s / (h t))
//   + sequence parallel       s b h (34 + 5 a s / h) / t
//   + selective recompute     34 s b h / t (core attention; the other
//                             recompute_modules drop their outputs too)
//   full recompute            2 s b h (the layer input)
//   op-level selective        the layer input, the kept matmul outputs
//   (torchtitan)              and attention's output and row statistics
// (GPT layer, d_ff = 4h, dropout, 16-bit activations.) The 5 a s / h term is
// the attention score matrix with its softmax and dropout; a fused (flash)
// attention kernel never stores it and keeps only its fp32 row statistics.
#pragma once

#include "models/spec/model_spec.h"
#include "models/spec/training_spec.h"
#include "models/workload/model_dims.h"

namespace pf::models::memory {

struct ActivationOptions {
  // Fused attention (FlashAttention / cuDNN): what current Megatron runs use.
  bool flash_attention = true;
  // What Recompute::selective re-runs (training.recompute_modules; Megatron's
  // default core_attn). layernorm drops the two norm outputs (2 s b h / t
  // each with SP), moe_act the routed experts' activation output, mla_up_proj
  // the queries, keys and values the up-projections made.
  RecomputeModules modules;
  // FP8 training (training.dtype fp8): Transformer Engine's linear layers
  // keep their input for the weight-gradient GEMM as the FP8 copy the forward
  // GEMM read, one byte per element (transformer_engine/pytorch/module/
  // linear.py, _Linear.forward: saved_inputmat is inputmat, the cast, when fp8
  // and the wgrad is not overridden to higher precision; LayerNormLinear
  // keeps its FP8 norm output the same way). What the other kernels keep
  // stays 16-bit: the attention kernel's Q, K and V, the activation
  // function's input, the norms' inputs, the router's input (Megatron-Core's
  // router is not an FP8 GEMM) and the LM head's input.
  bool fp8_linear_inputs = false;
  // Fine-grained activation offloading (training.offload_modules): the
  // listed modules' inputs live in host memory between forward and backward.
  OffloadModules offload{};
};

// Bytes one layer keeps for backward on one GPU for one micro-batch.
double layer_activation_bytes(const ModelSpec& model, const workload::LocalDims& dims, bool moe,
                              Recompute recompute, const ActivationOptions& opt);
// Extra bytes alive while one layer's backward runs: full recomputation
// rebuilds the whole layer's activations, selective the attention scores.
double recompute_working_bytes(const ModelSpec& model, const workload::LocalDims& dims, bool moe,
                               Recompute recompute, const ActivationOptions& opt);
// First stage: the embedding dropout mask (Korthikanti et al. 2022, section 4.3).
double embedding_activation_bytes(const ModelSpec& model, const workload::LocalDims& dims);
// Last stage: final norm input, LM head input and fp32 logits, 4 s b h / t (1 + v / h)
// with sequence parallelism (Korthikanti et al. 2022, section 4.3).
double head_activation_bytes(const ModelSpec& model, const workload::LocalDims& dims);
// Last stage: one multi-token-prediction module (its layer, projection input and head).
double mtp_activation_bytes(const ModelSpec& model, const workload::LocalDims& dims, Recompute recompute,
                            const ActivationOptions& opt);

}  // namespace pf::models::memory
