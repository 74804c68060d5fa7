// Prices a workload op on one GPU: turns the generator's op (kind, shape,
// FLOPs, bytes) into the compute cost model's kernel description and asks the
// cost model how long it runs and how sure it is. The cost model memoises by
// kernel, so pricing every op of every micro-batch costs a hash lookup.
#pragma once

#include <vector>

#include "models/compute/cost_model.h"
#include "models/spec/experiment_spec.h"
#include "models/workload/op.h"

namespace pf::models::training {

class OpPricer {
 public:
  explicit OpPricer(const ExperimentSpec& experiment);

  // The kernel the cost model sees for a compute-stream op.
  ComputeOp kernel(const workload::Op& op) const;
  // Duration and confidence of a compute-stream op (an imported op's measured
  // duration is taken as it is: basis calibrated, no uncertainty).
  // Ops made from a template are priced once per template (op.h's
  // template_index): a hash-free array lookup on the executor's hot path.
  CostEstimate price(const workload::Op& op) const {
    if (op.seconds >= 0) return CostEstimate{op.seconds, CostBasis::calibrated, 0, 0};
    if (op.template_index < memo_.size() && memo_[op.template_index].seconds >= 0) return memo_[op.template_index];
    return price_and_memoise(op);
  }

  const CostModel& cost_model() const { return cost_; }
  // Every priced kernel's time multiplier for the job's slowest GPU
  // (hardware.gpu.speed_spread over the experiment's GPUs; 1 without spread).
  double slowest_gpu_factor() const { return slowest_gpu_; }
  // The dtype a GEMM of this kind runs in: the training dtype, except that
  // under fp8 only the layers' linear GEMMs are fp8 (the rest bf16).
  Dtype gemm_dtype(workload::OpKind kind) const;

 private:
  CostEstimate price_and_memoise(const workload::Op& op) const;

  CostModel cost_;
  mutable std::vector<CostEstimate> memo_;  // by template index; seconds < 0: not priced yet
  Dtype dtype_;
  NormKind norm_;
  FlashKernel flash_kernel_;  // training.attention: which flash kernel prices attention
  double slowest_gpu_ = 1;    // compute/gpu_variability.h
  // Bytes per element of the main gradients the weight-gradient GEMMs
  // accumulate into (training.main_grad_accumulation fused); 0 otherwise.
  int main_grad_bytes_ = 0;
};

}  // namespace pf::models::training
