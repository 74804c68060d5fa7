#include "models/training/op_pricing.h"

namespace pf::models::training {
namespace {

using workload::OpKind;

AttentionShape attention_shape(const workload::AttentionShape& a) {
  AttentionShape s;
  s.batch = a.batch;
  s.seq_q = a.seq;
  s.seq_kv = a.seq;
  s.heads = a.heads;
  s.kv_heads = a.kv_heads;
  s.head_dim = a.head_dim;
  s.causal = a.causal;
  return s;
}

// Streaming kernels the roofline prices from the generator's counts.
OpClass streaming_class(OpKind kind) {
  switch (kind) {
    case OpKind::embedding_fwd:
    case OpKind::embedding_bwd: return OpClass::embedding;
    case OpKind::loss_fwd:
    case OpKind::loss_bwd: return OpClass::loss;
    case OpKind::optimizer_step: return OpClass::optimizer;
    default: return OpClass::elementwise;
  }
}

}  // namespace

OpPricer::OpPricer(const ExperimentSpec& e)
    : cost_(CostModel::from_spec(e.hardware.gpu)),
      dtype_(e.training.dtype),
      norm_(e.model.norm == Norm::rmsnorm ? NormKind::rmsnorm : NormKind::layernorm) {}

ComputeOp OpPricer::kernel(const workload::Op& op) const {
  const auto& shape = op.shape;
  switch (workload::op_class(op.kind)) {
    case workload::OpClass::gemm:
      return gemm_op({shape.gemm.M, shape.gemm.N, shape.gemm.K, shape.gemm.batch}, dtype_);
    case workload::OpClass::attention:
      return op.kind == OpKind::attention_bwd ? attention_backward_op(attention_shape(shape.attention), dtype_)
                                              : attention_op(attention_shape(shape.attention), dtype_);
    case workload::OpClass::norm:
      if (op.kind == OpKind::norm_bwd) return norm_backward_op({shape.rows.rows, shape.rows.dim, norm_}, dtype_);
      return norm_op({shape.rows.rows, shape.rows.dim, norm_}, dtype_);
    default:
      return streaming_op(streaming_class(op.kind), dtype_, op.flops, static_cast<double>(op.bytes));
  }
}

}  // namespace pf::models::training
