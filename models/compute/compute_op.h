// One GPU kernel as the compute cost model sees it: its class, its dtype, its
// FLOP and byte counts, and the shape a calibration table is looked up by.
// The workload generator builds these with the factories at the bottom, which
// fill `flops` and `bytes` by the formulas documented on each.
//
// What `flops` and `bytes` mean, for every class:
//   flops  floating-point operations the kernel must execute (a multiply-add
//          is 2), no recompute, no padding waste.
//   bytes  the minimum HBM traffic of the fused kernel: every operand read
//          once and every result written once, in the op's dtype. Caches,
//          re-reads and tiling overheads are not counted; they are what the
//          roofline efficiency and the calibration tables absorb.
#pragma once

#include <cstdint>

#include "models/spec/hardware_spec.h"

namespace pf::models {

enum class OpClass : std::uint8_t {
  gemm,                // C[M,N] = A[M,K]·B[K,N] (a linear layer's forward)
  gemm_backward,       // the forward GEMM's dgrad and wgrad: two GEMMs with swapped shapes
  attention,           // fused (flash) attention forward, optionally causal
  attention_backward,  // its backward (dQ, dK, dV)
  norm,                // RMSNorm or LayerNorm forward over rows × dim
  norm_backward,       // its backward (dx and the weight gradients)
  elementwise,         // activation, residual add, dropout, rotary, ...: counts from the generator
  optimizer,           // optimizer step over the local shard: counts from the generator
  embedding,           // token-embedding gather / scatter-add: counts from the generator
  loss,                // softmax + cross-entropy over the logits: counts from the generator
};

// Row-major C[M,N] = A[M,K]·B[K,N]; for a linear layer M is the token count.
// batch > 1: that many independent GEMMs of this shape in one kernel (batched
// attention scores, grouped MoE experts).
struct GemmShape {
  std::int64_t m = 0;
  std::int64_t n = 0;
  std::int64_t k = 0;
  std::int64_t batch = 1;
  // Bytes per element of an output the GEMM accumulates into in place (C +=
  // A·B: read and written at this width, Transformer Engine's fused
  // weight-gradient accumulation into the main gradients); 0: C is written
  // once in the GEMM's dtype.
  int accumulate_bytes = 0;
  bool operator==(const GemmShape&) const = default;
};

// Which flash kernel runs the attention: the GPU's best fused one
// (efficiency.attention: cuDNN / FlashAttention-3 on Hopper), FlashAttention-2
// (efficiency.attention_flash2), or the Triton FlashAttention that MPT and
// llm-foundry ran as attn_impl: triton (efficiency.attention_flash_triton).
enum class FlashKernel : std::uint8_t { fused, flash2, triton };

// Attention over `batch` sequences: seq_q query tokens attend to seq_kv key
// tokens; heads query heads share kv_heads key/value heads (grouped-query
// attention when kv_heads < heads). A causal mask is aligned bottom-right, as
// in FlashAttention 2.1 and later, so query i sees keys up to seq_kv-seq_q+i.
// A sliding window (causal only) also hides the keys more than `window`
// before that: query i sees keys seq_kv-seq_q+i-window .. seq_kv-seq_q+i, as
// FlashAttention's window_size = (window, 0) and Megatron-Core's window_size.
struct AttentionShape {
  std::int64_t batch = 0;
  std::int64_t seq_q = 0;
  std::int64_t seq_kv = 0;
  std::int64_t heads = 0;
  std::int64_t kv_heads = 0;
  std::int64_t head_dim = 0;
  bool causal = false;
  FlashKernel kernel = FlashKernel::fused;
  std::int64_t window = 0;  // keys before the diagonal a query sees; 0 = no window
  bool operator==(const AttentionShape&) const = default;
};

enum class NormKind : std::uint8_t { rmsnorm, layernorm };

// Normalisation over the last dimension of a rows × dim activation.
struct NormShape {
  std::int64_t rows = 0;
  std::int64_t dim = 0;
  NormKind kind = NormKind::rmsnorm;
  bool operator==(const NormShape&) const = default;
};

// Only the shape that matches `cls` is meaningful; the others stay zero so
// that two equal ops compare (and hash) equal.
struct ComputeOp {
  OpClass cls = OpClass::elementwise;
  Dtype dtype = Dtype::bf16;
  double flops = 0;
  double bytes = 0;
  GemmShape gemm;
  AttentionShape attn;
  NormShape norm;
  bool operator==(const ComputeOp&) const = default;
};

// Bytes per element as stored in HBM (tf32 is held in 32-bit words).
double dtype_bytes(Dtype dtype);
const char* to_string(Dtype dtype);
const char* to_string(OpClass cls);
// The flash kernel of a configured attention kernel (training.attention,
// gpu.calibration_attention); unfused attention has none and maps to fused.
FlashKernel flash_kernel(AttentionKernel kernel);

// The two GEMMs of a forward GEMM's backward:
//   dgrad dA[M,K] = dC[M,N]·Bᵀ  → shape (M, K, N)
//   wgrad dB[K,N] = Aᵀ·dC[M,N]  → shape (K, N, M)
GemmShape gemm_dgrad_shape(GemmShape forward);
GemmShape gemm_wgrad_shape(GemmShape forward);
// HBM bytes of a GEMM's output: written once in the dtype, or read and written
// at accumulate_bytes when it accumulates in place.
double gemm_output_bytes(const GemmShape& s, Dtype dtype);

// Fraction of the seq_q × seq_kv score matrix a causal (bottom-right) mask
// leaves; 1 when not causal. seq_q = seq_kv = s gives (s+1)/(2s); with a
// window w < s, (s(w+1) - w(w+1)/2) / s².
double attention_pair_fraction(const AttentionShape& shape);

// Score pairs that query positions k_begin .. k_end-1 of a causal mask see,
// position k (its diagonal key's index) seeing keys max(0, k-window) .. k:
// min(k, window) + 1 of them, none for k < 0. window 0 = no window.
double causal_band_pairs(std::int64_t k_begin, std::int64_t k_end, std::int64_t window);

// flops = 2·b·M·N·K; bytes = e·b·(M·K + K·N + M·N) (b = batch).
ComputeOp gemm_op(GemmShape shape, Dtype dtype);
// The sum of the dgrad and wgrad GEMMs above: flops = 4·M·N·K.
ComputeOp gemm_backward_op(GemmShape forward, Dtype dtype);
// flops = 4·batch·heads·seq_q·seq_kv·head_dim·pair_fraction (QKᵀ and PV);
// bytes = e·(2·Q + 2·KV) with Q = batch·seq_q·heads·head_dim and
// KV = batch·seq_kv·kv_heads·head_dim (read Q, K, V; write O).
ComputeOp attention_op(AttentionShape shape, Dtype dtype);
// flops = 2.5 × the forward's: FlashAttention's backward runs five matmuls
// against the forward's two (Dao, "FlashAttention-2", arXiv:2307.08691, §3.1.2;
// its benchmark script counts bwd = 2.5·fwd). bytes = e·(4·Q + 4·KV): read Q,
// K, V, O, dO, write dQ, dK, dV.
ComputeOp attention_backward_op(AttentionShape forward, Dtype dtype);
// flops = 4 (RMSNorm: square, sum, scale, weight) or 7 (LayerNorm adds the mean,
// its subtraction and the bias) per element; bytes = e·(2·rows·dim + p·dim),
// p = 1 weight vector (RMSNorm) or 2 (LayerNorm).
ComputeOp norm_op(NormShape shape, Dtype dtype);
// flops = 2 × the forward's; bytes = e·(3·rows·dim + 2·p·dim): read x and dy,
// write dx, read the weights and write their gradients.
ComputeOp norm_backward_op(NormShape shape, Dtype dtype);
// elementwise, optimizer, embedding, loss: the generator knows what the kernel
// touches, so it passes the counts (e.g. Adam on n fp32 master weights:
// flops ≈ 12·n, bytes ≈ 16·n read + 12·n written plus the low-precision copy).
ComputeOp streaming_op(OpClass cls, Dtype dtype, double flops, double bytes);

}  // namespace pf::models
