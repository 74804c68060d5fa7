#include "models/compute/roofline.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "models/compute/attention_tiles.h"
#include "models/compute/power_limit.h"

namespace pf::models {
namespace {

static_assert(static_cast<int>(Dtype::fp32) == 4, "Roofline::peak_ is indexed by Dtype; update kDtypes");

int index(Dtype dtype) { return static_cast<int>(dtype); }

void require_positive(double value, const char* key) {
  if (!(value > 0)) {
    throw ConfigError(std::string("hardware ") + key + ": expected a positive number, found " + std::to_string(value));
  }
}

}  // namespace

bool uses_tensor_cores(OpClass cls) {
  return cls == OpClass::gemm || cls == OpClass::gemm_backward || cls == OpClass::attention ||
         cls == OpClass::attention_backward;
}

Roofline::Roofline(const GpuSpec& gpu) : bandwidth_(gpu.memory_bandwidth_gbps * 1e9), efficiency_(gpu.efficiency) {
  require_positive(gpu.memory_bandwidth_gbps, "gpu.memory_bandwidth_gbps");
  require_positive(efficiency_.gemm, "gpu.efficiency.gemm");
  require_positive(efficiency_.attention, "gpu.efficiency.attention");
  require_positive(efficiency_.attention_backward, "gpu.efficiency.attention_backward");
  if (efficiency_.attention_flash2 < 0) require_positive(efficiency_.attention_flash2, "gpu.efficiency.attention_flash2");
  if (efficiency_.attention_flash_triton < 0) {
    require_positive(efficiency_.attention_flash_triton, "gpu.efficiency.attention_flash_triton");
  }
  require_positive(efficiency_.elementwise, "gpu.efficiency.elementwise");
  if (gpu.peak_tflops.empty()) {
    throw ConfigError("hardware gpu.peak_tflops: expected at least one dtype entry, found none");
  }
  require_positive(gpu.sustained_clock, "gpu.sustained_clock");
  for (const auto& [dtype, tflops] : gpu.peak_tflops) {
    require_positive(tflops, "gpu.peak_tflops");
    peak_[index(dtype)] = tflops * 1e12;
  }
  // Compute rates scale with the SM clock; HBM bandwidth does not (the memory
  // clock is not lowered by the power limit).
  clock_ = gpu.sustained_clock * power_limit_clock_factor(gpu);
  shape_aware_ = gpu.sm_count > 0;
  if (shape_aware_) {
    const GemmModelSpec& g = gpu.gemm_model;
    for (const double f : {g.memory_efficiency, g.unaligned_efficiency, g.unaligned_memory_efficiency, g.odd_efficiency,
                           g.odd_memory_efficiency}) {
      require_positive(f, "gpu.gemm efficiencies");
    }
    for (int i = 0; i < kDtypes; ++i) gemm_[i] = gemm_model_params(gpu, peak_[i] * clock_, static_cast<Dtype>(i));
  }
}

double Roofline::peak_flops(OpClass cls, Dtype dtype) const {
  // Non-matmul kernels run on the CUDA cores: the fp32 entry is their rate.
  if (!uses_tensor_cores(cls) && peak_[index(Dtype::fp32)] > 0) return peak_[index(Dtype::fp32)];
  const double peak = peak_[index(dtype)];
  if (peak <= 0) {
    throw ConfigError(std::string("hardware gpu.peak_tflops: expected an entry for ") + to_string(dtype) +
                      " (needed by a " + to_string(cls) + " op), found none");
  }
  return peak;
}

double Roofline::compute_efficiency(OpClass cls) const {
  switch (cls) {
    case OpClass::gemm:
    case OpClass::gemm_backward: return efficiency_.gemm;
    case OpClass::attention:
    case OpClass::attention_backward: return efficiency_.attention;
    default: return efficiency_.elementwise;
  }
}

// A kernel variant without its own rate falls back to the next better one:
// Triton FlashAttention to FlashAttention-2, FlashAttention-2 to the fused one.
double Roofline::attention_efficiency(FlashKernel kernel) const {
  if (kernel == FlashKernel::triton && efficiency_.attention_flash_triton > 0) return efficiency_.attention_flash_triton;
  if (kernel != FlashKernel::fused && efficiency_.attention_flash2 > 0) return efficiency_.attention_flash2;
  return efficiency_.attention;
}

double Roofline::head_dim_rate(const AttentionShape& a) const {
  const HeadDimRates& r =
      a.kernel == FlashKernel::fused ? efficiency_.attention_head_dim : efficiency_.attention_flash2_head_dim;
  const std::int64_t hd = a.head_dim;
  if (!r.measured || hd <= 0) return 1.0;
  const std::int64_t padded = hd <= 64 ? 64 : hd <= 128 ? 128 : hd <= 192 ? 192 : 256;
  const double rate = padded == 64 ? r.hd64 : padded == 128 ? 1.0 : padded == 192 ? r.hd192 : r.hd256;
  // Beyond 256 no kernel pads further: the 256 rate stands.
  return hd >= 256 ? rate : rate * static_cast<double>(hd) / static_cast<double>(padded);
}

double Roofline::compute_seconds(const ComputeOp& op) const {
  if (op.flops <= 0) return 0.0;
  const bool attention = op.cls == OpClass::attention || op.cls == OpClass::attention_backward;
  double efficiency = attention ? attention_efficiency(op.attn.kernel) : compute_efficiency(op.cls);
  if (attention && efficiency_.attention_kv_overhead > 0) {
    efficiency *= attention_tile_utilisation(op.attn, efficiency_.attention_kv_overhead);
  }
  if (attention) efficiency *= head_dim_rate(op.attn);
  if (op.cls == OpClass::attention_backward) efficiency *= efficiency_.attention_backward;
  return op.flops / (peak_flops(op.cls, op.dtype) * clock_ * efficiency);
}

double Roofline::memory_seconds(const ComputeOp& op) const {
  return op.bytes / (bandwidth_ * efficiency_.elementwise);
}

double Roofline::seconds(const ComputeOp& op) const {
  if (shape_aware_ && op.cls == OpClass::gemm) {
    peak_flops(op.cls, op.dtype);  // throws when the dtype has no peak
    return gemm_model_seconds(gemm_[index(op.dtype)], op.gemm, op.dtype);
  }
  return std::max(compute_seconds(op), memory_seconds(op));
}

double Roofline::ideal_seconds(const ComputeOp& op) const {
  const double compute = op.flops > 0 ? op.flops / peak_flops(op.cls, op.dtype) : 0.0;
  return std::max(compute, op.bytes / bandwidth_);
}

double Roofline::ridge_intensity(OpClass cls, Dtype dtype) const {
  // flops/(P·f·e_c) = bytes/(B·e_m)  ⇔  flops/bytes = P·f·e_c / (B·e_m).
  return peak_flops(cls, dtype) * clock_ * compute_efficiency(cls) / (bandwidth_ * efficiency_.elementwise);
}

}  // namespace pf::models
