#include "models/compute/compute_op.h"

#include <algorithm>
#include <string>

#include "core/error.h"

namespace pf::models {

double gemm_output_bytes(const GemmShape& s, Dtype dtype) {
  const double per_element = s.accumulate_bytes > 0 ? 2.0 * s.accumulate_bytes : dtype_bytes(dtype);
  return per_element * static_cast<double>(s.batch) * static_cast<double>(s.m) * static_cast<double>(s.n);
}

namespace {

// A zero or negative dimension is a bug in whoever built the op, not a user
// configuration error, hence SimulationError (exit 1).
void require_positive(std::int64_t value, const char* what) {
  if (value <= 0) {
    throw SimulationError(std::string("compute op: expected ") + what + " > 0, found " + std::to_string(value));
  }
}

double d(std::int64_t v) { return static_cast<double>(v); }

void check(const GemmShape& s) {
  require_positive(s.m, "gemm M");
  require_positive(s.n, "gemm N");
  require_positive(s.k, "gemm K");
  require_positive(s.batch, "gemm batch");
}

void check(const AttentionShape& s) {
  require_positive(s.batch, "attention batch");
  require_positive(s.seq_q, "attention seq_q");
  require_positive(s.seq_kv, "attention seq_kv");
  require_positive(s.heads, "attention heads");
  require_positive(s.kv_heads, "attention kv_heads");
  require_positive(s.head_dim, "attention head_dim");
  if (s.heads % s.kv_heads != 0) {
    throw SimulationError("compute op: expected attention heads (" + std::to_string(s.heads) +
                          ") to be a multiple of kv_heads, found " + std::to_string(s.kv_heads));
  }
  if (s.window < 0 || (s.window > 0 && !s.causal)) {
    throw SimulationError("compute op: expected a sliding window >= 0 on causal attention only, found " +
                          std::to_string(s.window) + (s.causal ? "" : " (not causal)"));
  }
}

// Pairs of the first n positions (0 .. n-1) of a causal band of `window` keys
// behind the diagonal: position k sees min(k, window) + 1 keys.
double band_prefix(std::int64_t n, std::int64_t window) {
  if (n <= 0) return 0;
  if (window <= 0 || n <= window + 1) return d(n) * (d(n) + 1.0) / 2.0;
  return (d(window) + 1.0) * (d(window) + 2.0) / 2.0 + d(n - window - 1) * (d(window) + 1.0);
}

void check(const NormShape& s) {
  require_positive(s.rows, "norm rows");
  require_positive(s.dim, "norm dim");
}

double gemm_bytes(const GemmShape& s, Dtype dtype) {
  return dtype_bytes(dtype) * d(s.batch) * (d(s.m) * d(s.k) + d(s.k) * d(s.n)) + gemm_output_bytes(s, dtype);
}

double attention_fwd_flops(const AttentionShape& s) {
  return 4.0 * d(s.batch) * d(s.heads) * d(s.seq_q) * d(s.seq_kv) * d(s.head_dim) * attention_pair_fraction(s);
}

// Elements of Q (equally O, dO, dQ) and of K (equally V, dK, dV).
double q_elems(const AttentionShape& s) { return d(s.batch) * d(s.seq_q) * d(s.heads) * d(s.head_dim); }
double kv_elems(const AttentionShape& s) { return d(s.batch) * d(s.seq_kv) * d(s.kv_heads) * d(s.head_dim); }

double norm_flops_per_element(NormKind kind) { return kind == NormKind::rmsnorm ? 4.0 : 7.0; }
double norm_weight_vectors(NormKind kind) { return kind == NormKind::rmsnorm ? 1.0 : 2.0; }

}  // namespace

double dtype_bytes(Dtype dtype) {
  switch (dtype) {
    case Dtype::bf16:
    case Dtype::fp16: return 2.0;
    case Dtype::fp8: return 1.0;
    case Dtype::tf32:
    case Dtype::fp32: return 4.0;
  }
  return 4.0;
}

const char* to_string(Dtype dtype) {
  switch (dtype) {
    case Dtype::bf16: return "bf16";
    case Dtype::fp16: return "fp16";
    case Dtype::fp8: return "fp8";
    case Dtype::tf32: return "tf32";
    case Dtype::fp32: return "fp32";
  }
  return "?";
}

const char* to_string(OpClass cls) {
  switch (cls) {
    case OpClass::gemm: return "gemm";
    case OpClass::gemm_backward: return "gemm_backward";
    case OpClass::attention: return "attention";
    case OpClass::attention_backward: return "attention_backward";
    case OpClass::norm: return "norm";
    case OpClass::norm_backward: return "norm_backward";
    case OpClass::elementwise: return "elementwise";
    case OpClass::optimizer: return "optimizer";
    case OpClass::embedding: return "embedding";
    case OpClass::loss: return "loss";
  }
  return "?";
}

GemmShape gemm_dgrad_shape(GemmShape forward) { return {forward.m, forward.k, forward.n, forward.batch}; }
GemmShape gemm_wgrad_shape(GemmShape forward) { return {forward.k, forward.n, forward.m, forward.batch}; }

double causal_band_pairs(std::int64_t k_begin, std::int64_t k_end, std::int64_t window) {
  return band_prefix(k_end, window) - band_prefix(std::max<std::int64_t>(k_begin, 0), window);
}

double attention_pair_fraction(const AttentionShape& s) {
  if (!s.causal) return 1.0;
  // Bottom-right mask: query i (0-based) has its diagonal at key skv - sq + i.
  const std::int64_t offset = s.seq_kv - s.seq_q;
  return causal_band_pairs(offset, offset + s.seq_q, s.window) / (d(s.seq_q) * d(s.seq_kv));
}

ComputeOp gemm_op(GemmShape shape, Dtype dtype) {
  check(shape);
  ComputeOp op;
  op.cls = OpClass::gemm;
  op.dtype = dtype;
  op.gemm = shape;
  op.flops = 2.0 * d(shape.batch) * d(shape.m) * d(shape.n) * d(shape.k);
  op.bytes = gemm_bytes(shape, dtype);
  return op;
}

ComputeOp gemm_backward_op(GemmShape forward, Dtype dtype) {
  check(forward);
  ComputeOp op;
  op.cls = OpClass::gemm_backward;
  op.dtype = dtype;
  op.gemm = forward;
  op.flops = 4.0 * d(forward.batch) * d(forward.m) * d(forward.n) * d(forward.k);
  op.bytes = gemm_bytes(gemm_dgrad_shape(forward), dtype) + gemm_bytes(gemm_wgrad_shape(forward), dtype);
  return op;
}

ComputeOp attention_op(AttentionShape shape, Dtype dtype) {
  check(shape);
  ComputeOp op;
  op.cls = OpClass::attention;
  op.dtype = dtype;
  op.attn = shape;
  op.flops = attention_fwd_flops(shape);
  op.bytes = dtype_bytes(dtype) * (2.0 * q_elems(shape) + 2.0 * kv_elems(shape));
  return op;
}

ComputeOp attention_backward_op(AttentionShape forward, Dtype dtype) {
  check(forward);
  ComputeOp op;
  op.cls = OpClass::attention_backward;
  op.dtype = dtype;
  op.attn = forward;
  op.flops = 2.5 * attention_fwd_flops(forward);
  op.bytes = dtype_bytes(dtype) * (4.0 * q_elems(forward) + 4.0 * kv_elems(forward));
  return op;
}

ComputeOp norm_op(NormShape shape, Dtype dtype) {
  check(shape);
  ComputeOp op;
  op.cls = OpClass::norm;
  op.dtype = dtype;
  op.norm = shape;
  op.flops = norm_flops_per_element(shape.kind) * d(shape.rows) * d(shape.dim);
  op.bytes = dtype_bytes(dtype) * (2.0 * d(shape.rows) * d(shape.dim) + norm_weight_vectors(shape.kind) * d(shape.dim));
  return op;
}

ComputeOp norm_backward_op(NormShape shape, Dtype dtype) {
  check(shape);
  ComputeOp op;
  op.cls = OpClass::norm_backward;
  op.dtype = dtype;
  op.norm = shape;
  op.flops = 2.0 * norm_flops_per_element(shape.kind) * d(shape.rows) * d(shape.dim);
  op.bytes = dtype_bytes(dtype) *
             (3.0 * d(shape.rows) * d(shape.dim) + 2.0 * norm_weight_vectors(shape.kind) * d(shape.dim));
  return op;
}

ComputeOp streaming_op(OpClass cls, Dtype dtype, double flops, double bytes) {
  const bool streaming = cls == OpClass::elementwise || cls == OpClass::optimizer || cls == OpClass::embedding ||
                         cls == OpClass::loss;
  if (!streaming) {
    throw SimulationError(std::string("compute op: streaming_op takes elementwise, optimizer, embedding or loss, found ") +
                          to_string(cls));
  }
  if (!(flops >= 0) || !(bytes >= 0)) {
    throw SimulationError("compute op: expected flops >= 0 and bytes >= 0, found " + std::to_string(flops) + " and " +
                          std::to_string(bytes));
  }
  ComputeOp op;
  op.cls = cls;
  op.dtype = dtype;
  op.flops = flops;
  op.bytes = bytes;
  return op;
}

FlashKernel flash_kernel(AttentionKernel kernel) {
  switch (kernel) {
    case AttentionKernel::flash2: return FlashKernel::flash2;
    case AttentionKernel::flash_triton: return FlashKernel::triton;
    default: return FlashKernel::fused;
  }
}

}  // namespace pf::models
