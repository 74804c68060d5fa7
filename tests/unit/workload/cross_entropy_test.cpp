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

WorkloadPlan with_fusion(const Config& c, bool fused) {
  const WorkloadPlan base = testing::make_plan(c);
  TrainingSpec t = base.training();
  t.fused_cross_entropy = fused;
  return WorkloadPlan(base.model(), base.parallelism(), t);
}

TEST(CrossEntropy, FusionKeepsTheFp32StepsInFewerPasses) {
  for (int tp : {1, 2}) {
    Config c;
    c.tp = tp;
    c.sp = tp > 1;
    c.pp = 2;
    const int last_stage_gpu = tp;  // the head and the loss sit on the last stage
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

}  // namespace
}  // namespace pf::models::workload
