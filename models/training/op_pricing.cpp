#include "models/training/op_pricing.h"

#include "models/compute/gpu_variability.h"
#include "models/workload/precision.h"

namespace pf::models::training {
namespace {

using workload::OpKind;

AttentionShape attention_shape(const workload::AttentionShape& a, FlashKernel kernel) {
  AttentionShape s;
  s.kernel = kernel;
  s.batch = a.batch;
  s.seq_q = a.seq;
  s.seq_kv = a.seq;
  s.heads = a.heads;
  s.kv_heads = a.kv_heads;
  s.head_dim = a.head_dim;
  s.causal = a.causal;
  s.window = a.window;
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

// The weight-gradient GEMMs of the layers' linear modules and the output
// layer: the ones Megatron-Core's gradient-accumulation fusion points at the
// main gradients (Transformer Engine's fuse_wgrad_accumulation; the output
// layer's fused_weight_gradient_mlp_cuda). The router's weight is a plain
// parameter and unfused attention's batched GEMMs have no weight.
bool accumulates_into_main_grad(OpKind kind) {
  if (kind == OpKind::lm_head_wgrad) return true;
  return workload::fp8_linear(kind) && workload::kind_name(kind).ends_with("_wgrad");
}

}  // namespace

Dtype OpPricer::gemm_dtype(workload::OpKind kind) const {
  return dtype_ == Dtype::fp8 && !workload::fp8_linear(kind) ? Dtype::bf16 : dtype_;
}

OpPricer::OpPricer(const ExperimentSpec& e)
    : cost_(CostModel::from_spec(e.hardware.gpu)),
      dtype_(e.training.dtype),
      norm_(e.model.norm == Norm::rmsnorm ? NormKind::rmsnorm : NormKind::layernorm),
      flash_kernel_(flash_kernel(e.training.attention)),
      slowest_gpu_(models::slowest_gpu(e).factor()) {
  if (e.training.main_grad_accumulation == MainGradAccumulation::fused)
    main_grad_bytes_ = workload::grad_bytes(e.training.dtype, e.training.grad_reduce_dtype);
}

CostEstimate OpPricer::price_and_memoise(const workload::Op& op) const {
  CostEstimate e = cost_.estimate(kernel(op));
  e.seconds *= slowest_gpu_;
  if (op.template_index == workload::kNoOp) return e;
  if (op.template_index >= memo_.size()) memo_.resize(op.template_index + 1, CostEstimate{-1, CostBasis::roofline_only, 0, 0});
  memo_[op.template_index] = e;
  return e;
}

ComputeOp OpPricer::kernel(const workload::Op& op) const {
  const auto& shape = op.shape;
  switch (workload::op_class(op.kind)) {
    case workload::OpClass::gemm: {
      GemmShape g{shape.gemm.M, shape.gemm.N, shape.gemm.K, shape.gemm.batch};
      if (accumulates_into_main_grad(op.kind)) g.accumulate_bytes = main_grad_bytes_;
      return gemm_op(g, gemm_dtype(op.kind));
    }
    case workload::OpClass::attention: {
      // FP8 training (Transformer Engine's fp8 autocast, torchtitan's Float8
      // Linear) quantises the linear layers' GEMMs only; attention runs in bf16
      // unless fp8 attention is asked for explicitly (TE's fp8_dpa, off by default).
      const Dtype d = dtype_ == Dtype::fp8 ? Dtype::bf16 : dtype_;
      const AttentionShape s = attention_shape(shape.attention, flash_kernel_);
      return op.kind == OpKind::attention_bwd ? attention_backward_op(s, d) : attention_op(s, d);
    }
    case workload::OpClass::norm:
      // One kernel of eager PyTorch's norm: priced from its own bytes.
      if (shape.rows.eager_pass) return streaming_op(OpClass::elementwise, dtype_, op.flops, static_cast<double>(op.bytes));
      if (op.kind == OpKind::norm_bwd) return norm_backward_op({shape.rows.rows, shape.rows.dim, norm_}, dtype_);
      return norm_op({shape.rows.rows, shape.rows.dim, norm_}, dtype_);
    default:
      return streaming_op(streaming_class(op.kind), dtype_, op.flops, static_cast<double>(op.bytes));
  }
}

}  // namespace pf::models::training
