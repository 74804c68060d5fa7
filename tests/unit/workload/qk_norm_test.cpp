// model.qk_norm (Qwen3, OLMo 2): Megatron-Core's SelfAttention normalises the
// queries, then the keys, per head between the QKV projection and RoPE (one
// norm kernel each over the local heads' columns); the backward runs both
// norms' gradients right after RoPE's. Their weights, one head_dim vector
// each, count with the QKV projection.
#include <gtest/gtest.h>

#include "models/workload/param_count.h"
#include "tests/unit/workload/program_fixture.h"

namespace pf::models::workload {
namespace {

// The ops of layer 0, micro-batch 0, in issue order.
std::vector<Op> layer_ops(const WorkloadPlan& plan) {
  std::vector<Op> out;
  for (const Op& op : testing::ops_of(plan, 0))
    if (op.layer == 0 && op.microbatch == 0 && !op.recompute) out.push_back(op);
  return out;
}

WorkloadPlan with_qk_norm(const WorkloadPlan& plan, bool on) {
  ModelSpec m = plan.model();
  m.qk_norm = on;
  return WorkloadPlan(m, plan.parallelism(), plan.training());
}

// The compute ops strictly between the first `from` and the next `to` in
// `ops` (a sequence-parallel re-gather may sit between them on its own stream).
std::vector<const Op*> between(const std::vector<Op>& ops, OpKind from, OpKind to) {
  std::vector<const Op*> out;
  std::size_t i = 0;
  while (i < ops.size() && ops[i].kind != from) ++i;
  for (++i; i < ops.size() && ops[i].kind != to; ++i)
    if (ops[i].stream == Stream::compute) out.push_back(&ops[i]);
  return out;
}

TEST(QkNorm, TwoNormsBetweenTheProjectionAndRopeEachWay) {
  for (int tp : {1, 2}) {
    testing::Config c;
    c.moe = true;  // tiny_moe: RMSNorm, 8 heads, 4 KV heads, RoPE
    c.tp = tp;
    c.sp = tp > 1;
    const WorkloadPlan base = testing::make_plan(c);
    const LocalDims& d = base.dims();
    EXPECT_TRUE(between(layer_ops(base), OpKind::qkv_fwd, OpKind::rope_fwd).empty()) << "tp " << tp;

    const WorkloadPlan plan = with_qk_norm(base, true);
    const std::vector<Op> ops = layer_ops(plan);
    const auto fwd = between(ops, OpKind::qkv_fwd, OpKind::rope_fwd);
    ASSERT_EQ(fwd.size(), 2u) << "tp " << tp;
    const std::int64_t widths[2] = {d.q_dim_local, d.k_dim_local};
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(fwd[i]->kind, OpKind::norm_fwd);
      // Read and write the local heads' query (then key) columns, 16-bit.
      EXPECT_EQ(fwd[i]->bytes, static_cast<std::uint64_t>(2 * 2 * d.tokens * widths[i])) << "tp " << tp;
    }
    const auto bwd = between(ops, OpKind::rope_bwd, OpKind::qkv_dgrad);
    ASSERT_EQ(bwd.size(), 2u) << "tp " << tp;
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(bwd[i]->kind, OpKind::norm_bwd);
      EXPECT_EQ(bwd[i]->bytes, static_cast<std::uint64_t>(3 * 2 * d.tokens * widths[i])) << "tp " << tp;
    }
  }
}

TEST(QkNorm, WeightsCountWithTheQkvProjection) {
  testing::Config c;
  c.moe = true;
  const WorkloadPlan base = testing::make_plan(c);
  const WorkloadPlan plan = with_qk_norm(base, true);
  const LayerParams without = layer_params(base.model(), base.dims(), false);
  const LayerParams with = layer_params(plan.model(), plan.dims(), false);
  EXPECT_EQ(with.qkv - without.qkv, 2 * plan.dims().head_dim);  // RMSNorm: one scale per element
  EXPECT_EQ(with.total() - without.total(), 2 * plan.dims().head_dim);
}

}  // namespace
}  // namespace pf::models::workload
