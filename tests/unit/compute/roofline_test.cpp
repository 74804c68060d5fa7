// Roofline physics: compute-bound time follows the peak, memory-bound time the
// bytes and the bandwidth, and the max() switches exactly at the ridge.
#include <gtest/gtest.h>

#include "core/error.h"
#include "gh200.h"
#include "models/compute/roofline.h"

namespace pf::models {
namespace {

using test::gh200;

ComputeOp raw(OpClass cls, double flops, double bytes) {
  ComputeOp op;
  op.cls = cls;
  op.dtype = Dtype::bf16;
  op.flops = flops;
  op.bytes = bytes;
  return op;
}

TEST(Roofline, ComputeBoundTimeHalvesWhenPeakDoubles) {
  GpuSpec gpu = gh200();
  const ComputeOp op = gemm_op({8192, 8192, 8192}, Dtype::bf16);  // intensity ≈ 2731 flop/B
  const Roofline base(gpu);
  ASSERT_GT(base.compute_seconds(op), base.memory_seconds(op));
  gpu.peak_tflops[Dtype::bf16] *= 2;
  const Roofline doubled(gpu);
  EXPECT_DOUBLE_EQ(doubled.seconds(op), base.seconds(op) / 2);
  EXPECT_DOUBLE_EQ(base.seconds(op), op.flops / (989e12 * 0.80));
}

TEST(Roofline, MemoryBoundTimeScalesWithBytesAndInverselyWithBandwidth) {
  GpuSpec gpu = gh200();
  const Roofline base(gpu);
  const ComputeOp small = streaming_op(OpClass::elementwise, Dtype::bf16, 1e6, 1e9);
  const ComputeOp large = streaming_op(OpClass::elementwise, Dtype::bf16, 1e6, 3e9);
  ASSERT_GT(base.memory_seconds(small), base.compute_seconds(small));
  EXPECT_DOUBLE_EQ(base.seconds(large), 3 * base.seconds(small));
  EXPECT_DOUBLE_EQ(base.seconds(small), 1e9 / (4000e9 * 0.85));
  gpu.memory_bandwidth_gbps *= 2;
  EXPECT_DOUBLE_EQ(Roofline(gpu).seconds(small), base.seconds(small) / 2);
  // A memory-bound op does not care about the peak.
  gpu = gh200();
  gpu.peak_tflops[Dtype::fp32] *= 4;
  EXPECT_DOUBLE_EQ(Roofline(gpu).seconds(small), base.seconds(small));
}

TEST(Roofline, MaxSwitchesAtTheRidge) {
  const Roofline r(gh200());
  const double ridge = r.ridge_intensity(OpClass::gemm, Dtype::bf16);
  EXPECT_DOUBLE_EQ(ridge, 989e12 * 0.80 / (4000e9 * 0.85));
  const double bytes = 1e8;
  const ComputeOp at = raw(OpClass::gemm, ridge * bytes, bytes);
  EXPECT_NEAR(r.compute_seconds(at), r.memory_seconds(at), 1e-12 * r.seconds(at));
  // Below the ridge extra FLOPs are free; above it they cost linearly.
  const ComputeOp below = raw(OpClass::gemm, 0.5 * ridge * bytes, bytes);
  const ComputeOp above = raw(OpClass::gemm, 2.0 * ridge * bytes, bytes);
  EXPECT_DOUBLE_EQ(r.seconds(below), r.memory_seconds(at));
  EXPECT_DOUBLE_EQ(r.seconds(above), 2.0 * r.seconds(at));
  EXPECT_GT(r.compute_seconds(above), r.memory_seconds(above));
  EXPECT_LT(r.compute_seconds(below), r.memory_seconds(below));
}

TEST(Roofline, EfficiencyPerClassAndCudaCorePeakForNonMatmul) {
  const Roofline r(gh200());
  const double flops = 1e15;
  EXPECT_DOUBLE_EQ(r.compute_seconds(raw(OpClass::gemm, flops, 0)), flops / (989e12 * 0.80));
  EXPECT_DOUBLE_EQ(r.compute_seconds(raw(OpClass::attention_backward, flops, 0)), flops / (989e12 * 0.65));
  // Norms, elementwise, optimizer... run on the CUDA cores at the fp32 rate.
  EXPECT_DOUBLE_EQ(r.compute_seconds(raw(OpClass::norm, flops, 0)), flops / (67e12 * 0.85));
  EXPECT_DOUBLE_EQ(r.ideal_seconds(raw(OpClass::gemm, flops, 0)), flops / 989e12);
}

// efficiency.attention_backward slows the backward of every flash kernel by
// that factor per FLOP and leaves the forward alone.
TEST(Roofline, AttentionBackwardRunsAtItsFractionOfTheForwardRate) {
  GpuSpec gpu = gh200();
  gpu.efficiency.attention_flash2 = 0.30;
  const Roofline same(gpu);
  gpu.efficiency.attention_backward = 0.8;
  const Roofline slower(gpu);
  for (FlashKernel kernel : {FlashKernel::fused, FlashKernel::flash2}) {
    const AttentionShape shape{2, 4096, 4096, 32, 8, 128, true, kernel};
    const ComputeOp fwd = attention_op(shape, Dtype::bf16), bwd = attention_backward_op(shape, Dtype::bf16);
    EXPECT_DOUBLE_EQ(slower.seconds(fwd), same.seconds(fwd));
    EXPECT_NEAR(slower.seconds(bwd) / same.seconds(bwd), 1 / 0.8, 1e-12);
  }
}

// training.attention: flash2 prices the same attention work at
// efficiency.attention_flash2; unset, it falls back to efficiency.attention.
TEST(Roofline, FlashAttention2KernelsRunAtTheirOwnEfficiency) {
  GpuSpec gpu = gh200();
  const AttentionShape fused{4, 8192, 8192, 32, 8, 128, true};
  AttentionShape fa2 = fused;
  fa2.kernel = FlashKernel::flash2;
  const Roofline unset(gpu);
  EXPECT_DOUBLE_EQ(unset.seconds(attention_op(fa2, Dtype::bf16)), unset.seconds(attention_op(fused, Dtype::bf16)));
  gpu.efficiency.attention_flash2 = 0.30;
  const Roofline r(gpu);
  for (bool backward : {false, true}) {
    const ComputeOp a = backward ? attention_backward_op(fused, Dtype::bf16) : attention_op(fused, Dtype::bf16);
    const ComputeOp b = backward ? attention_backward_op(fa2, Dtype::bf16) : attention_op(fa2, Dtype::bf16);
    ASSERT_EQ(a.flops, b.flops);
    EXPECT_NEAR(r.seconds(b) / r.seconds(a), 0.65 / 0.30, 1e-12);
    EXPECT_DOUBLE_EQ(r.seconds(b), b.flops / (989e12 * 0.30));
  }
}

// training.attention: flash_triton prices the same work at
// efficiency.attention_flash_triton; unset, it falls back to attention_flash2,
// and with neither to efficiency.attention.
TEST(Roofline, TritonFlashAttentionFallsBackToFlashAttention2) {
  GpuSpec gpu = gh200();
  const AttentionShape fused{4, 8192, 8192, 32, 8, 128, true};
  AttentionShape fa2 = fused, triton = fused;
  fa2.kernel = FlashKernel::flash2;
  triton.kernel = FlashKernel::triton;
  const auto time = [](const Roofline& r, const AttentionShape& a) { return r.seconds(attention_op(a, Dtype::bf16)); };
  EXPECT_DOUBLE_EQ(time(Roofline(gpu), triton), time(Roofline(gpu), fused));
  gpu.efficiency.attention_flash2 = 0.30;
  EXPECT_DOUBLE_EQ(time(Roofline(gpu), triton), time(Roofline(gpu), fa2));
  gpu.efficiency.attention_flash_triton = 0.12;
  const Roofline r(gpu);
  EXPECT_NEAR(time(r, triton) / time(r, fa2), 0.30 / 0.12, 1e-12);
  EXPECT_NEAR(r.seconds(attention_backward_op(triton, Dtype::bf16)) /
                  r.seconds(attention_backward_op(fa2, Dtype::bf16)),
              0.30 / 0.12, 1e-12);
  gpu.efficiency.attention_flash_triton = -0.1;
  EXPECT_THROW(Roofline{gpu}, pf::ConfigError);
}

// gpu.sustained_clock scales the SM clock: compute-bound kernels (tensor-core
// and CUDA-core) slow by exactly 1/f, memory-bound ones not at all, and the
// calibration anchor (ideal_seconds) keeps the quoted peak.
TEST(Roofline, SustainedClockSlowsComputeBoundKernelsOnly) {
  GpuSpec gpu = gh200();
  const Roofline quoted(gpu);
  gpu.sustained_clock = 0.8;
  const Roofline sustained(gpu);
  const ComputeOp gemm = gemm_op({8192, 8192, 8192}, Dtype::bf16);
  const ComputeOp attention = raw(OpClass::attention, 1e13, 1e6);
  const ComputeOp streaming = streaming_op(OpClass::elementwise, Dtype::bf16, 1e6, 1e9);
  ASSERT_GT(quoted.compute_seconds(gemm), quoted.memory_seconds(gemm));
  ASSERT_GT(quoted.memory_seconds(streaming), quoted.compute_seconds(streaming));
  EXPECT_DOUBLE_EQ(sustained.seconds(gemm), quoted.seconds(gemm) / 0.8);
  EXPECT_DOUBLE_EQ(sustained.seconds(attention), quoted.seconds(attention) / 0.8);
  EXPECT_DOUBLE_EQ(sustained.seconds(streaming), quoted.seconds(streaming));
  EXPECT_DOUBLE_EQ(sustained.ideal_seconds(gemm), quoted.ideal_seconds(gemm));
  EXPECT_DOUBLE_EQ(sustained.ideal_seconds(streaming), quoted.ideal_seconds(streaming));
  gpu.sustained_clock = 0;
  EXPECT_THROW(Roofline{gpu}, ConfigError);
}

TEST(Roofline, RejectsMissingPeaksAndBadBandwidth) {
  GpuSpec gpu = gh200();
  gpu.peak_tflops.erase(Dtype::fp8);
  const Roofline r(gpu);
  try {
    (void)r.seconds(gemm_op({64, 64, 64}, Dtype::fp8));
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("gpu.peak_tflops"), std::string::npos) << msg;
    EXPECT_NE(msg.find("fp8"), std::string::npos) << msg;
  }
  gpu = gh200();
  gpu.memory_bandwidth_gbps = 0;
  EXPECT_THROW(Roofline{gpu}, ConfigError);
  gpu = gh200();
  gpu.efficiency.gemm = 0;
  EXPECT_THROW(Roofline{gpu}, ConfigError);
}

}  // namespace
}  // namespace pf::models
