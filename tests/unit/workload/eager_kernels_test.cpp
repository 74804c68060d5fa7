// training.fused_elementwise false: eager PyTorch's elementwise kernels. The
// decomposition conserves the dataflow (matmul FLOPs, gradient elements, the
// op contract) and only adds kernels and bytes where eager code really runs
// more passes: a Python RMSNorm and SwiGLU, dropout before the residual, the
// rotary embedding through complex numbers; torch's native LayerNorm and GeLU
// stay one kernel.
#include <gtest/gtest.h>

#include <map>

#include "tests/unit/workload/program_fixture.h"

namespace pf::models::workload {
namespace {

using testing::Config;

WorkloadPlan with_fusion(const Config& c, bool fused) {
  return testing::make_plan_with(c, [fused](TrainingSpec& t) { t.fused_elementwise = fused; });
}

struct Totals {
  double matmul_flops = 0;
  double reduced = 0;  // gradient bytes the data-parallel reduces carry
  std::map<OpKind, int> count;
  std::map<OpKind, double> bytes;
};

Totals totals(const std::vector<Op>& ops) {
  Totals t;
  for (const Op& op : ops) {
    if (is_matmul(op.kind)) t.matmul_flops += op.flops;
    if (op.kind == OpKind::dp_grad_all_reduce || op.kind == OpKind::dp_grad_reduce_scatter) {
      t.reduced += static_cast<double>(op.bytes);
    }
    ++t.count[op.kind];
    t.bytes[op.kind] += static_cast<double>(op.bytes);
  }
  return t;
}

TEST(EagerKernels, RmsNormSwigluAndRotaryBecomeTheirEagerPasses) {
  Config c;
  c.moe = true;  // tiny_moe: RMSNorm, SwiGLU, rotary
  c.tp = 2;
  c.sp = true;
  c.dp = 2;
  const Totals fused = totals(testing::ops_of(with_fusion(c, true), 0));
  const Totals eager = totals(testing::ops_of(with_fusion(c, false), 0));
  EXPECT_DOUBLE_EQ(eager.matmul_flops, fused.matmul_flops);
  ASSERT_GT(fused.reduced, 0);
  EXPECT_DOUBLE_EQ(eager.reduced, fused.reduced);
  // Kernels per op and bytes relative to the fused kernel (eager_kernels.cpp).
  EXPECT_EQ(eager.count.at(OpKind::norm_fwd), 8 * fused.count.at(OpKind::norm_fwd));
  EXPECT_EQ(eager.count.at(OpKind::norm_bwd), 13 * fused.count.at(OpKind::norm_bwd));
  EXPECT_NEAR(eager.bytes.at(OpKind::norm_fwd) / fused.bytes.at(OpKind::norm_fwd), 18.0 / 2.0, 1e-9);
  EXPECT_NEAR(eager.bytes.at(OpKind::norm_bwd) / fused.bytes.at(OpKind::norm_bwd), 38.0 / 3.0, 1e-9);
  EXPECT_EQ(eager.count.at(OpKind::expert_act_fwd), 2 * fused.count.at(OpKind::expert_act_fwd));
  EXPECT_NEAR(eager.bytes.at(OpKind::expert_act_bwd) / fused.bytes.at(OpKind::expert_act_bwd), 9.0 / 5.0, 1e-9);
  EXPECT_EQ(eager.count.at(OpKind::rope_fwd), 3 * fused.count.at(OpKind::rope_fwd));
  EXPECT_NEAR(eager.bytes.at(OpKind::rope_bwd) / fused.bytes.at(OpKind::rope_bwd), 10.0 / 2.0, 1e-9);
  EXPECT_EQ(eager.count.at(OpKind::residual_fwd), fused.count.at(OpKind::residual_fwd));  // no dropout: one add
}

TEST(EagerKernels, NativeLayerNormAndGeluStayOneKernel) {
  Config c;  // tiny_gpt: LayerNorm, GeLU, dropout, learned positions
  const Totals fused = totals(testing::ops_of(with_fusion(c, true), 0));
  const Totals eager = totals(testing::ops_of(with_fusion(c, false), 0));
  EXPECT_EQ(eager.count.at(OpKind::norm_fwd), fused.count.at(OpKind::norm_fwd));
  EXPECT_EQ(eager.count.at(OpKind::norm_bwd), 2 * fused.count.at(OpKind::norm_bwd));  // + the gamma/beta reduction
  EXPECT_EQ(eager.count.at(OpKind::mlp_act_fwd), fused.count.at(OpKind::mlp_act_fwd));
  EXPECT_EQ(eager.count.at(OpKind::residual_fwd), 2 * fused.count.at(OpKind::residual_fwd));  // dropout, then add
  EXPECT_DOUBLE_EQ(eager.matmul_flops, fused.matmul_flops);
}

// Unfused attention as 2020 Megatron-LM ran it: the causal mask, the softmax
// and the dropout are three kernels over the s x s scores forward (6.5 passes
// against the fused softmax-and-dropout's 3.5) and three backward (7.5
// against 3.5); the score and context GEMMs do not change.
TEST(EagerKernels, UnfusedAttentionMasksSoftmaxesAndDropsOutInKernelsOfTheirOwn) {
  Config c;  // tiny_gpt: dropout
  const auto unfused = [](const WorkloadPlan& p, bool fused) {
    TrainingSpec t = p.training();
    t.fused_elementwise = fused;
    t.attention = AttentionKernel::unfused;
    return WorkloadPlan(p.model(), p.parallelism(), t);
  };
  const WorkloadPlan base = testing::make_plan(c);
  const Totals fused = totals(testing::ops_of(unfused(base, true), 0));
  const Totals eager = totals(testing::ops_of(unfused(base, false), 0));
  ASSERT_GT(fused.count.at(OpKind::attn_softmax_fwd), 0);
  EXPECT_EQ(eager.count.at(OpKind::attn_softmax_fwd), 3 * fused.count.at(OpKind::attn_softmax_fwd));
  EXPECT_EQ(eager.count.at(OpKind::attn_softmax_bwd), 3 * fused.count.at(OpKind::attn_softmax_bwd));
  EXPECT_NEAR(eager.bytes.at(OpKind::attn_softmax_fwd) / fused.bytes.at(OpKind::attn_softmax_fwd), 6.5 / 3.5, 1e-9);
  EXPECT_NEAR(eager.bytes.at(OpKind::attn_softmax_bwd) / fused.bytes.at(OpKind::attn_softmax_bwd), 7.5 / 3.5, 1e-9);
  for (OpKind k : {OpKind::attn_scores_fwd, OpKind::attn_context_fwd, OpKind::attn_scores_dgrad}) {
    EXPECT_EQ(eager.count.at(k), fused.count.at(k));
    EXPECT_DOUBLE_EQ(eager.bytes.at(k), fused.bytes.at(k));
  }
  EXPECT_DOUBLE_EQ(eager.matmul_flops, fused.matmul_flops);
  EXPECT_EQ(testing::dry_run(unfused(base, false), testing::all_ops(unfused(base, false))), 0u);
}

// Each pass waits for the one before it, only the first for the op's inputs,
// and every plan still runs to completion under the op contract.
TEST(EagerKernels, PassesChainAndProgramsComplete) {
  for (bool deepseek : {false, true}) {
    Config c;
    c.moe = !deepseek;
    c.deepseek = deepseek;
    c.pp = 2;
    c.dp = 2;
    c.ep = deepseek ? 2 : 1;
    c.recompute = Recompute::full;
    const WorkloadPlan plan = with_fusion(c, false);
    const auto ops = testing::all_ops(plan);
    EXPECT_EQ(testing::dry_run(plan, ops), 0u) << c.name();
    // norm_bwd chains of 13 passes: 12 of every 13 passes wait for a pass of the same norm.
    int heads = 0, chained = 0;
    for (const Op& op : ops[0]) {
      if (op.kind != OpKind::norm_bwd) continue;
      ASSERT_TRUE(op.shape.rows.eager_pass);
      const Op& before = ops[0][op.deps[0]];
      (before.kind == OpKind::norm_bwd && before.shape.rows.eager_pass) ? ++chained : ++heads;
    }
    ASSERT_GT(heads, 0);
    EXPECT_EQ(chained, 12 * heads) << c.name();
  }
}

}  // namespace
}  // namespace pf::models::workload
