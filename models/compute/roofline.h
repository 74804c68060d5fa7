// The roofline cost of an op (DESIGN, models/: compute cost):
//
//   time = max( flops / (peak[dtype] · sustained_clock · efficiency[class]),
//               bytes / (memory_bandwidth · efficiency.elementwise) )
//
// gpu.sustained_clock (default 1) is the SM clock the GPU holds under
// continuous load as a fraction of the clock the peaks and efficiencies were
// measured at, lowered further by a power limit below the TDP
// (power_limit.h); it scales every compute rate (the GEMM model's too) and no
// memory rate.
//
// Compute term. gemm and gemm_backward use efficiency.gemm, attention and
// attention_backward use efficiency.attention, at the dtype's dense
// tensor-core peak (gpu.peak_tflops). Every other class (norms, elementwise,
// optimizer, embedding, loss) runs on the CUDA cores, not the tensor cores, so
// its peak is the fp32 entry of gpu.peak_tflops (the non-tensor vector rate,
// e.g. 19.5 on an A100) when the hardware file gives one, at
// efficiency.elementwise.
//
// Memory term. efficiency.elementwise is read as the fraction of HBM bandwidth
// a streaming kernel sustains, and it is applied to every class's memory term:
// a memory-bound GEMM (a skinny M) or attention streams its operands just as an
// elementwise kernel does, so it reaches the same fraction of the bandwidth.
//
// GEMMs on a GPU whose hardware file gives gpu.sm_count are priced by the
// shape-aware model of gemm_model.h instead (tiles, waves, alignment, the
// memory floor); without sm_count they keep the formula above.
//
// Deterministic, no allocation, no virtual call: one switch and two divisions
// (the GEMM model: 30 candidate tilings).
#pragma once

#include <array>

#include "models/compute/compute_op.h"
#include "models/compute/gemm_model.h"
#include "models/spec/hardware_spec.h"

namespace pf::models {

class Roofline {
 public:
  // Throws pf::ConfigError when memory_bandwidth_gbps or an efficiency is not
  // positive, or when no peak is given at all.
  explicit Roofline(const GpuSpec& gpu);

  // Roofline time with the hardware file's efficiencies (GEMMs: the shape
  // model when sm_count is given).
  double seconds(const ComputeOp& op) const;
  bool shape_aware_gemms() const { return shape_aware_; }
  double compute_seconds(const ComputeOp& op) const;
  double memory_seconds(const ComputeOp& op) const;

  // The same with every efficiency 1 and the quoted peak (no sustained-clock
  // derate): what the hardware could do at best. The calibrated estimator
  // measures kernels relative to this anchor, so that neither the configured
  // efficiencies nor gpu.sustained_clock leak into calibrated results: a
  // measured table is priced as measured.
  double ideal_seconds(const ComputeOp& op) const;

  // Arithmetic intensity (flop/byte) at which the two terms are equal: above
  // it an op of this class is compute-bound.
  double ridge_intensity(OpClass cls, Dtype dtype) const;

  // The quoted FLOP/s of the units the op runs on (tensor cores, or the CUDA
  // cores' fp32 rate), before the sustained clock and efficiency. Throws
  // pf::ConfigError naming gpu.peak_tflops when the dtype has no entry.
  double peak_flops(OpClass cls, Dtype dtype) const;
  double bandwidth_bytes_per_s() const { return bandwidth_; }
  double compute_efficiency(OpClass cls) const;
  // The rate of one flash kernel variant (efficiency.attention*, with fallbacks).
  double attention_efficiency(FlashKernel kernel) const;
  // The kernel's rate at this head dimension over its rate at 128 (efficiency.attention_head_dim).
  double head_dim_rate(const AttentionShape& a) const;
  double memory_efficiency() const { return efficiency_.elementwise; }
  // A flash kernel's backward rate over its forward's (efficiency.attention_backward).
  double attention_backward_ratio() const { return efficiency_.attention_backward; }

 private:
  static constexpr int kDtypes = 5;
  std::array<double, kDtypes> peak_{};  // FLOP/s per Dtype as quoted (gpu.peak_tflops), 0 when not given
  double clock_ = 1;                    // sustained clock x power-limit factor: multiplies every compute rate
  double bandwidth_ = 0;                // bytes/s
  OpEfficiency efficiency_;
  bool shape_aware_ = false;
  std::array<GemmModelParams, kDtypes> gemm_{};  // per Dtype, for the shape model
};

// True for the classes that run on the tensor cores.
bool uses_tensor_cores(OpClass cls);

}  // namespace pf::models
