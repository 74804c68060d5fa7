// The CostModel facade: which path prices which op, the memo, and loading the
// hardware file's calibration path.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>

#include "gh200.h"
#include "models/compute/cost_model.h"

namespace pf::models {
namespace {

using test::gh200;

std::vector<CalibrationTable> gh200_tables() {
  return {test::gh200_table("gemm_fp16.csv"), test::gh200_table("attention_fp16.csv"),
          test::gh200_table("rmsnorm.csv")};
}

// One transformer layer's worth of distinct ops, forward and backward.
std::vector<ComputeOp> layer_ops() {
  const Dtype t = Dtype::bf16;
  const AttentionShape attn{1, 4096, 4096, 32, 8, 128, true};
  return {gemm_op({4096, 6144, 4096}, t),          gemm_backward_op({4096, 6144, 4096}, t),
          gemm_op({4096, 4096, 4096}, t),          gemm_op({4096, 28672, 4096}, t),
          gemm_backward_op({4096, 4096, 14336}, t), attention_op(attn, t),
          attention_backward_op(attn, t),           norm_op({4096, 4096, NormKind::rmsnorm}, t),
          norm_backward_op({4096, 4096, NormKind::rmsnorm}, t),
          streaming_op(OpClass::elementwise, t, 4096.0 * 14336 * 4, 3 * 2.0 * 4096 * 14336),
          streaming_op(OpClass::optimizer, Dtype::fp32, 12 * 1e9, 30e9),
          streaming_op(OpClass::embedding, t, 0, 2 * 2.0 * 4096 * 4096),
          streaming_op(OpClass::loss, t, 5 * 4096.0 * 128256, 3 * 2.0 * 4096 * 128256)};
}

TEST(CostModel, WithoutTablesEverythingIsRoofline) {
  CostModelOptions options;
  options.roofline_only_uncertainty = 0.4;
  const CostModel model(gh200(), {}, options);
  for (const ComputeOp& op : layer_ops()) {
    const CostEstimate e = model.estimate(op);
    EXPECT_EQ(e.basis, CostBasis::roofline_only) << to_string(op.cls);
    EXPECT_DOUBLE_EQ(e.relative_uncertainty, 0.4);
    EXPECT_EQ(e.extrapolation, 0.0);
    if (op.cls != OpClass::gemm_backward) {
      EXPECT_DOUBLE_EQ(e.seconds, model.roofline().seconds(op));
    }
  }
}

TEST(CostModel, TablesPriceTheirClassesAndOnlyThose) {
  const CostModel model(gh200(), gh200_tables());
  ASSERT_EQ(model.estimators().size(), 3u);
  for (const ComputeOp& op : layer_ops()) {
    const CostEstimate e = model.estimate(op);
    const bool streaming = op.cls == OpClass::elementwise || op.cls == OpClass::optimizer ||
                           op.cls == OpClass::embedding || op.cls == OpClass::loss;
    EXPECT_EQ(e.basis == CostBasis::roofline_only, streaming) << to_string(op.cls);
    EXPECT_GT(e.seconds, 0.0);
    EXPECT_GT(e.relative_uncertainty, 0.0);
  }
}

TEST(CostModel, GemmBackwardIsItsTwoSwappedGemms) {
  const CostModel model(gh200(), gh200_tables());
  for (GemmShape fwd : {GemmShape{4096, 6144, 4096}, GemmShape{8192, 1024, 3000}, GemmShape{64, 50257, 4096}}) {
    const CostEstimate bwd = model.estimate(gemm_backward_op(fwd, Dtype::bf16));
    const CostEstimate dgrad = model.estimate(gemm_op(gemm_dgrad_shape(fwd), Dtype::bf16));
    const CostEstimate wgrad = model.estimate(gemm_op(gemm_wgrad_shape(fwd), Dtype::bf16));
    EXPECT_DOUBLE_EQ(bwd.seconds, dgrad.seconds + wgrad.seconds);
    EXPECT_EQ(bwd.basis, std::max(dgrad.basis, wgrad.basis));
    EXPECT_DOUBLE_EQ(bwd.extrapolation, std::max(dgrad.extrapolation, wgrad.extrapolation));
  }
}

TEST(CostModel, MemoGivesIdenticalAnswersAndHits) {
  CostModelOptions no_cache;
  no_cache.cache_slots = 0;
  const auto tables = gh200_tables();
  const CostModel cached(gh200(), tables);
  const CostModel uncached(gh200(), tables, no_cache);
  const auto ops = layer_ops();
  for (int round = 0; round < 3; ++round) {
    for (const ComputeOp& op : ops) {
      const CostEstimate a = cached.estimate(op), b = uncached.estimate(op);
      EXPECT_EQ(a.seconds, b.seconds);
      EXPECT_EQ(a.basis, b.basis);
      EXPECT_EQ(a.extrapolation, b.extrapolation);
      EXPECT_EQ(a.relative_uncertainty, b.relative_uncertainty);
    }
  }
  EXPECT_GT(cached.cache().hits(), 0u);
  EXPECT_EQ(uncached.cache().hits(), 0u);
}

TEST(CostModel, MillionsOfLookupsAreCheap) {
  const CostModel model(gh200(), gh200_tables());
  const auto ops = layer_ops();
  constexpr int kCalls = 2'000'000;
  double total = 0;
  std::uint64_t table_priced = 0;  // streaming ops skip the memo: the roofline is cheaper than a hash
  for (int i = 0; i < kCalls; ++i) {
    table_priced += model.estimate(ops[static_cast<std::size_t>(i) % ops.size()]).basis != CostBasis::roofline_only;
  }
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kCalls; ++i) total += model.estimate(ops[static_cast<std::size_t>(i) % ops.size()]).seconds;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << kCalls << " estimates in " << wall << " s (" << 1e9 * wall / kCalls << " ns each)\n";
  EXPECT_GT(total, 0.0);
  EXPECT_GE(model.cache().hits(), 2 * table_priced - ops.size());  // every call but the first per op
}

TEST(CostModel, FromSpecLoadsTheCalibrationPath) {
  GpuSpec gpu = gh200();
  gpu.calibration = test::calibration_dir() + "/gh200";
  const CostModel model = CostModel::from_spec(gpu);
  EXPECT_EQ(model.estimators().size(), 3u);
  EXPECT_NE(model.estimator(KernelTableKind::gemm, Dtype::bf16), nullptr);
  EXPECT_EQ(model.estimator(KernelTableKind::gemm, Dtype::bf16)->dtype(), Dtype::fp16);
  gpu.calibration.clear();
  EXPECT_TRUE(CostModel::from_spec(gpu).estimators().empty());
}

// gpu.calibration_attention names the kernel the attention table timed: with
// flash2 a FlashAttention-2 op of a measured shape is the measurement, and the
// fused kernel is priced from it at attention / attention_flash2 the speed.
TEST(CostModel, CalibrationAttentionNamesTheKernelTheTableTimed) {
  GpuSpec gpu = gh200();
  gpu.calibration = test::calibration_dir() + "/gh200";
  gpu.efficiency.attention = 0.60;
  gpu.efficiency.attention_flash2 = 0.30;
  gpu.calibration_attention = AttentionKernel::flash2;
  const CostModel model = CostModel::from_spec(gpu);
  const Measurement m = test::gh200_table("attention_fp16.csv").rows.back();
  AttentionShape a = m.op.attn;
  a.kernel = FlashKernel::flash2;
  const CostEstimate fa2 = model.estimate(attention_op(a, m.op.dtype));
  EXPECT_NEAR(fa2.seconds, m.seconds, 1e-9 * m.seconds);
  a.kernel = FlashKernel::fused;
  EXPECT_NEAR(model.estimate(attention_op(a, m.op.dtype)).seconds / m.seconds, 0.30 / 0.60, 1e-9);
  // By default the table is taken as the fused kernel's: the same op is then the measurement.
  gpu.calibration_attention = AttentionKernel::flash;
  EXPECT_NEAR(CostModel::from_spec(gpu).estimate(attention_op(a, m.op.dtype)).seconds, m.seconds, 1e-9 * m.seconds);
}

TEST(CostModel, TablesOfOneKindAndDtypeMerge) {
  auto [a, b] = test::split(test::gh200_table("rmsnorm.csv"), 0.5, 3);
  const CostModel model(gh200(), {a, b});
  ASSERT_EQ(model.estimators().size(), 1u);
  // Every row of both halves is now an exact hit.
  for (std::size_t i = 0; i < b.rows.size(); i += 4001) {
    EXPECT_EQ(model.estimate(b.rows[i].op).basis, CostBasis::calibrated);
    EXPECT_EQ(model.estimate(a.rows[i].op).basis, CostBasis::calibrated);
  }
}

}  // namespace
}  // namespace pf::models
