#include "models/compute/kernel_features.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace pf::models {
namespace {

double lg(std::int64_t v) { return std::log2(static_cast<double>(v)); }

// log2 of the byte alignment shared by N and K, capped at 16 bytes.
double alignment_log2_bytes(const GemmShape& s, Dtype dtype) {
  const int trailing = std::min(std::countr_zero(static_cast<std::uint64_t>(s.n)),
                                std::countr_zero(static_cast<std::uint64_t>(s.k)));
  const double bytes = dtype_bytes(dtype) * std::ldexp(1.0, std::min(trailing, 8));
  return std::log2(std::min(bytes, 16.0));
}

bool same_variant(KernelTableKind kind, const ComputeOp& op) {
  switch (kind) {
    case KernelTableKind::gemm: return op.cls == OpClass::gemm;
    case KernelTableKind::attention: return op.cls == OpClass::attention && !op.attn.causal;
    case KernelTableKind::rmsnorm: return op.cls == OpClass::norm && op.norm.kind == NormKind::rmsnorm;
  }
  return false;
}

}  // namespace

int feature_dims(KernelTableKind kind) {
  switch (kind) {
    case KernelTableKind::gemm: return 4;
    case KernelTableKind::attention: return 5;
    case KernelTableKind::rmsnorm: return 2;
  }
  return 1;
}

bool table_kind_for(OpClass cls, KernelTableKind* kind) {
  switch (cls) {
    case OpClass::gemm: *kind = KernelTableKind::gemm; return true;
    case OpClass::attention:
    case OpClass::attention_backward: *kind = KernelTableKind::attention; return true;
    case OpClass::norm:
    case OpClass::norm_backward: *kind = KernelTableKind::rmsnorm; return true;
    default: return false;
  }
}

KdTree::Point shape_features(KernelTableKind kind, const ComputeOp& op, double alignment_weight) {
  KdTree::Point x{};
  switch (kind) {
    case KernelTableKind::gemm:
      x = {lg(op.gemm.m), lg(op.gemm.n), lg(op.gemm.k), alignment_weight * alignment_log2_bytes(op.gemm, op.dtype)};
      break;
    case KernelTableKind::attention: {
      const AttentionShape& a = op.attn;
      x = {lg(a.batch * a.heads), lg(a.seq_q), lg(a.seq_kv), lg(a.heads / a.kv_heads), lg(a.head_dim)};
      break;
    }
    case KernelTableKind::rmsnorm: x = {lg(op.norm.rows), lg(op.norm.dim)}; break;
  }
  return x;
}

ComputeOp measured_variant(KernelTableKind kind, const ComputeOp& op, Dtype dtype) {
  switch (kind) {
    case KernelTableKind::gemm: return gemm_op(op.gemm, dtype);
    case KernelTableKind::attention: {
      AttentionShape a = op.attn;
      a.causal = false;  // the tables time full (non-causal) attention
      a.window = 0;
      return attention_op(a, dtype);
    }
    case KernelTableKind::rmsnorm: return norm_op({op.norm.rows, op.norm.dim, NormKind::rmsnorm}, dtype);
  }
  return op;
}

double variant_distance(KernelTableKind kind, const ComputeOp& op, Dtype table_dtype, const Roofline& roofline) {
  const ComputeOp same_dtype = measured_variant(kind, op, op.dtype);
  const double anchor_op = roofline.ideal_seconds(op);
  const double anchor_variant = roofline.ideal_seconds(same_dtype);
  const double kind_part =
      same_variant(kind, op) ? 0.0 : std::max(1.0, std::abs(std::log2(anchor_op / anchor_variant)));
  double dtype_part = 0.0;
  if (op.dtype != table_dtype) {
    dtype_part = std::abs(std::log2(anchor_variant / roofline.ideal_seconds(measured_variant(kind, op, table_dtype))));
  }
  return std::hypot(kind_part, dtype_part);
}

}  // namespace pf::models
