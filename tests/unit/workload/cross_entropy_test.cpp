// The loss over the vocabulary shard (models/workload/edge_units.cpp):
// Megatron-Core's vocab_parallel_cross_entropy moves 38 bytes per logit
// forward and 14 backward in fp32 passes; --cross-entropy-loss-fusion runs the
// same steps as jit-fused regions, 22 and 6. Only the loss ops change.
#include <gtest/gtest.h>

#include <map>

#include "tests/unit/workload/program_fixture.h"

namespace pf::models::workload {
namespace {

using testing::Config;

std::map<OpKind, double> bytes_by_kind(const WorkloadPlan& plan, int gpu) {
  std::map<OpKind, double> out;
  for (const Op& op : testing::ops_of(plan, gpu)) out[op.kind] += static_cast<double>(op.bytes);
  return out;
}

WorkloadPlan with_fusion(const Config& c, bool fused, CrossEntropyFusionImpl impl = CrossEntropyFusionImpl::native) {
  const WorkloadPlan base = testing::make_plan(c);
  TrainingSpec t = base.training();
  t.fused_cross_entropy = fused;
  t.cross_entropy_fusion_impl = impl;
  return WorkloadPlan(base.model(), base.parallelism(), t);
}

// TP tp (sequence parallel when > 1) over two pipeline stages; the head and
// the loss sit on the last stage, whose first GPU is `tp`.
Config two_stages(int tp) {
  Config c;
  c.tp = tp;
  c.sp = tp > 1;
  c.pp = 2;
  return c;
}

int count_kind(const WorkloadPlan& plan, int gpu, OpKind kind) {
  int n = 0;
  for (const Op& op : testing::ops_of(plan, gpu)) n += op.kind == kind;
  return n;
}

TEST(CrossEntropy, FusionKeepsTheFp32StepsInFewerPasses) {
  for (int tp : {1, 2}) {
    const Config c = two_stages(tp);
    const int last_stage_gpu = tp;
    const auto plain = bytes_by_kind(with_fusion(c, false), last_stage_gpu);
    const auto fused = bytes_by_kind(with_fusion(c, true), last_stage_gpu);
    ASSERT_GT(plain.at(OpKind::loss_bwd), 0) << tp;
    EXPECT_NEAR(fused.at(OpKind::loss_bwd) / plain.at(OpKind::loss_bwd), 6.0 / 14.0, 1e-12) << tp;
    // Forward: the vocabulary pass scales 22 / 38; the per-token finish (after
    // the all-reduces with TP) does not change.
    EXPECT_LT(fused.at(OpKind::loss_fwd), plain.at(OpKind::loss_fwd));
    EXPECT_GE(fused.at(OpKind::loss_fwd) / plain.at(OpKind::loss_fwd), 22.0 / 38.0 - 1e-12);
    for (const auto& [kind, bytes] : plain) {
      if (kind == OpKind::loss_fwd || kind == OpKind::loss_bwd) continue;
      EXPECT_DOUBLE_EQ(fused.at(kind), bytes) << static_cast<int>(kind);
    }
  }
}

// --cross-entropy-fusion-impl te: Transformer Engine's Triton loss reads the
// 16-bit logits twice forward (2 + 4 bytes per logit: the second pass writes
// the gradient in place) and scales that gradient in place backward (4
// bytes); with TP one all-gather of three fp32 figures per token replaces
// vocab_parallel_cross_entropy's three all-reduces.
TEST(CrossEntropy, TransformerEnginesTritonLossReadsTheLogitsTwice) {
  for (int tp : {1, 2}) {
    const Config c = two_stages(tp);
    const int last_stage_gpu = tp;
    const WorkloadPlan native = with_fusion(c, true), te = with_fusion(c, true, CrossEntropyFusionImpl::te);
    const LocalDims& d = te.dims();
    const auto n = bytes_by_kind(native, last_stage_gpu), t = bytes_by_kind(te, last_stage_gpu);
    const double logits = static_cast<double>(d.tokens * d.vocab_local) * static_cast<double>(te.microbatches());
    EXPECT_DOUBLE_EQ(t.at(OpKind::loss_fwd), 6.0 * logits) << tp;
    EXPECT_DOUBLE_EQ(t.at(OpKind::loss_bwd), 4.0 * logits) << tp;
    const int gathers = count_kind(te, last_stage_gpu, OpKind::tp_all_gather) -
                        count_kind(native, last_stage_gpu, OpKind::tp_all_gather);
    const int reduces = count_kind(native, last_stage_gpu, OpKind::tp_all_reduce) -
                        count_kind(te, last_stage_gpu, OpKind::tp_all_reduce);
    EXPECT_EQ(gathers, tp > 1 ? static_cast<int>(te.microbatches()) : 0) << tp;
    EXPECT_EQ(reduces, tp > 1 ? 3 * static_cast<int>(te.microbatches()) : 0) << tp;
    for (const auto& [kind, bytes] : n) {
      if (kind == OpKind::loss_fwd || kind == OpKind::loss_bwd || kind == OpKind::tp_all_gather ||
          kind == OpKind::tp_all_reduce)
        continue;
      EXPECT_DOUBLE_EQ(t.at(kind), bytes) << static_cast<int>(kind);
    }
  }
}

}  // namespace
}  // namespace pf::models::workload
