// The routed experts' GEMMs are one grouped GEMM over the local experts:
// experts_local equal GEMMs of the tokens routed to one expert each (balanced
// routing), weight gradients per expert over that expert's tokens only. The
// FLOPs are those of one GEMM over all routed rows.
#include <gtest/gtest.h>

#include "tests/unit/workload/program_fixture.h"

namespace pf::models::workload {
namespace {

TEST(MoeGroupedGemm, OneGroupPerLocalExpertOverItsShareOfTheTokens) {
  for (int ep : {1, 2, 4}) {
    testing::Config c;
    c.moe = true;  // tiny_moe: 4 experts, top-2, expert ffn 512, hidden 256
    c.dp = 4;
    c.ep = ep;
    const WorkloadPlan plan = testing::make_plan(c);
    const LocalDims& d = plan.dims();
    const std::int64_t local = 4 / ep, per_expert = d.expert_rows / local;
    int seen = 0;
    for (const Op& op : testing::ops_of(plan, 0)) {
      const GemmShape& g = op.shape.gemm;
      switch (op.kind) {
        case OpKind::expert_fc1_fwd:
        case OpKind::expert_fc2_fwd:
        case OpKind::expert_fc1_dgrad:
        case OpKind::expert_fc2_dgrad:
          EXPECT_EQ(g.batch, local) << "ep " << ep;
          EXPECT_EQ(g.M, per_expert) << "ep " << ep;
          ++seen;
          break;
        case OpKind::expert_fc1_wgrad:
        case OpKind::expert_fc2_wgrad:
          EXPECT_EQ(g.batch, local) << "ep " << ep;
          EXPECT_EQ(g.K, per_expert) << "ep " << ep;
          ++seen;
          break;
        default: break;
      }
      if (op_class(op.kind) == OpClass::gemm) {
        EXPECT_DOUBLE_EQ(op.flops, 2.0 * static_cast<double>(g.batch) * static_cast<double>(g.M) *
                                       static_cast<double>(g.N) * static_cast<double>(g.K));
      }
    }
    EXPECT_GT(seen, 0);
  }
}

}  // namespace
}  // namespace pf::models::workload
