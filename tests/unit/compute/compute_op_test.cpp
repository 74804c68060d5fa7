// FLOP and byte counts of the op factories against their closed forms.
#include <gtest/gtest.h>

#include "core/error.h"
#include "models/compute/compute_op.h"

namespace pf::models {
namespace {

TEST(ComputeOp, GemmCountsFlopsAndMinimumTraffic) {
  const ComputeOp op = gemm_op({4096, 12288, 1024}, Dtype::bf16);
  EXPECT_EQ(op.cls, OpClass::gemm);
  EXPECT_DOUBLE_EQ(op.flops, 2.0 * 4096 * 12288 * 1024);
  EXPECT_DOUBLE_EQ(op.bytes, 2.0 * (4096.0 * 1024 + 1024.0 * 12288 + 4096.0 * 12288));
  EXPECT_DOUBLE_EQ(gemm_op({4096, 12288, 1024}, Dtype::fp8).bytes, op.bytes / 2);
}

TEST(ComputeOp, GemmBackwardIsDgradPlusWgradWithSwappedShapes) {
  const GemmShape fwd{512, 3072, 768};
  EXPECT_EQ(gemm_dgrad_shape(fwd), (GemmShape{512, 768, 3072}));
  EXPECT_EQ(gemm_wgrad_shape(fwd), (GemmShape{768, 3072, 512}));
  const ComputeOp bwd = gemm_backward_op(fwd, Dtype::bf16);
  const ComputeOp dgrad = gemm_op(gemm_dgrad_shape(fwd), Dtype::bf16);
  const ComputeOp wgrad = gemm_op(gemm_wgrad_shape(fwd), Dtype::bf16);
  EXPECT_DOUBLE_EQ(bwd.flops, dgrad.flops + wgrad.flops);
  EXPECT_DOUBLE_EQ(bwd.flops, 2 * gemm_op(fwd, Dtype::bf16).flops);
  EXPECT_DOUBLE_EQ(bwd.bytes, dgrad.bytes + wgrad.bytes);
}

// Count visible (query, key) pairs of a bottom-right causal mask one by one.
double brute_force_pair_fraction(std::int64_t sq, std::int64_t skv) {
  double visible = 0;
  for (std::int64_t i = 0; i < sq; ++i) {
    for (std::int64_t j = 0; j < skv; ++j) visible += (j <= skv - sq + i) ? 1 : 0;
  }
  return visible / static_cast<double>(sq * skv);
}

TEST(ComputeOp, CausalPairFractionMatchesBruteForce) {
  for (auto [sq, skv] : {std::pair<std::int64_t, std::int64_t>{64, 64}, {16, 64}, {64, 16}, {1, 33}, {7, 7}}) {
    AttentionShape s{1, sq, skv, 1, 1, 64, true};
    EXPECT_NEAR(attention_pair_fraction(s), brute_force_pair_fraction(sq, skv), 1e-12) << sq << "x" << skv;
  }
  EXPECT_DOUBLE_EQ(attention_pair_fraction({1, 8, 8, 1, 1, 64, false}), 1.0);
}

// The same, one key at a time, with a sliding window: query i sees keys
// skv - sq + i - window .. skv - sq + i.
double brute_force_window_fraction(std::int64_t sq, std::int64_t skv, std::int64_t window) {
  double visible = 0;
  for (std::int64_t i = 0; i < sq; ++i) {
    const std::int64_t diagonal = skv - sq + i;
    for (std::int64_t j = 0; j < skv; ++j) visible += (j <= diagonal && j >= diagonal - window) ? 1 : 0;
  }
  return visible / static_cast<double>(sq * skv);
}

TEST(ComputeOp, SlidingWindowPairFractionMatchesBruteForce) {
  for (auto [sq, skv] : {std::pair<std::int64_t, std::int64_t>{64, 64}, {16, 64}, {64, 16}, {1, 33}, {7, 7}, {300, 300}}) {
    for (std::int64_t w : {1, 3, 15, 16, 63, 64, 1000}) {
      AttentionShape s{1, sq, skv, 1, 1, 64, true};
      s.window = w;
      EXPECT_NEAR(attention_pair_fraction(s), brute_force_window_fraction(sq, skv, w), 1e-12)
          << sq << "x" << skv << " window " << w;
    }
  }
  // A window as long as the sequence is the causal mask; a window only narrows it.
  AttentionShape wide{1, 512, 512, 1, 1, 64, true};
  wide.window = 511;
  EXPECT_DOUBLE_EQ(attention_pair_fraction(wide), attention_pair_fraction({1, 512, 512, 1, 1, 64, true}));
  AttentionShape narrow = wide;
  narrow.window = 128;
  EXPECT_LT(attention_pair_fraction(narrow), attention_pair_fraction(wide));
  // A window on non-causal attention is a generator bug.
  AttentionShape bad{1, 8, 8, 1, 1, 64, false};
  bad.window = 4;
  EXPECT_THROW(attention_op(bad, Dtype::bf16), SimulationError);
}

TEST(ComputeOp, AttentionForwardAndBackwardCounts) {
  const AttentionShape s{2, 4096, 4096, 32, 8, 128, false};
  const ComputeOp fwd = attention_op(s, Dtype::bf16);
  EXPECT_DOUBLE_EQ(fwd.flops, 4.0 * 2 * 32 * 4096.0 * 4096 * 128);
  const double q = 2.0 * 4096 * 32 * 128, kv = 2.0 * 4096 * 8 * 128;
  EXPECT_DOUBLE_EQ(fwd.bytes, 2 * (2 * q + 2 * kv));
  const ComputeOp bwd = attention_backward_op(s, Dtype::bf16);
  EXPECT_DOUBLE_EQ(bwd.flops, 2.5 * fwd.flops);
  EXPECT_DOUBLE_EQ(bwd.bytes, 2 * fwd.bytes);
  AttentionShape causal = s;
  causal.causal = true;
  EXPECT_DOUBLE_EQ(attention_op(causal, Dtype::bf16).flops, fwd.flops * (4097.0 / 8192.0));
}

TEST(ComputeOp, NormCounts) {
  const ComputeOp rms = norm_op({8192, 4096, NormKind::rmsnorm}, Dtype::bf16);
  EXPECT_DOUBLE_EQ(rms.flops, 4.0 * 8192 * 4096);
  EXPECT_DOUBLE_EQ(rms.bytes, 2 * (2.0 * 8192 * 4096 + 4096));
  const ComputeOp ln = norm_op({8192, 4096, NormKind::layernorm}, Dtype::bf16);
  EXPECT_GT(ln.flops, rms.flops);
  EXPECT_DOUBLE_EQ(ln.bytes, 2 * (2.0 * 8192 * 4096 + 2 * 4096));
  const ComputeOp back = norm_backward_op({8192, 4096, NormKind::rmsnorm}, Dtype::bf16);
  EXPECT_DOUBLE_EQ(back.flops, 2 * rms.flops);
  EXPECT_DOUBLE_EQ(back.bytes, 2 * (3.0 * 8192 * 4096 + 2 * 4096));
}

TEST(ComputeOp, RejectsImpossibleShapesAndClasses) {
  EXPECT_THROW(gemm_op({0, 1, 1}, Dtype::bf16), SimulationError);
  EXPECT_THROW(attention_op({1, 8, 8, 6, 4, 64, false}, Dtype::bf16), SimulationError);  // 6 % 4 != 0
  EXPECT_THROW(norm_op({1, -3, NormKind::rmsnorm}, Dtype::bf16), SimulationError);
  EXPECT_THROW(streaming_op(OpClass::gemm, Dtype::bf16, 1, 1), SimulationError);
  EXPECT_THROW(streaming_op(OpClass::elementwise, Dtype::bf16, -1, 1), SimulationError);
  EXPECT_NO_THROW(streaming_op(OpClass::optimizer, Dtype::fp32, 12e9, 30e9));
}

TEST(ComputeOp, EqualOpsCompareEqual) {
  EXPECT_EQ(gemm_op({64, 64, 64}, Dtype::bf16), gemm_op({64, 64, 64}, Dtype::bf16));
  EXPECT_NE(gemm_op({64, 64, 64}, Dtype::bf16), gemm_op({64, 64, 64}, Dtype::fp16));
}

}  // namespace
}  // namespace pf::models
