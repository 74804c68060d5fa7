// Rotary position embeddings: models without learned positions rotate Q and K
// once per layer and micro-batch in forward (and dQ, dK in backward), reading
// and writing exactly those widths; GPT-style models with learned positions
// have no rotary kernels.
#include <gtest/gtest.h>

#include "tests/unit/workload/program_fixture.h"

namespace pf::models::workload {
namespace {

using testing::Config;

struct Counts {
  int fwd = 0, bwd = 0;
  std::uint64_t fwd_bytes = 0;
};

Counts count(const std::vector<Op>& ops) {
  Counts c;
  for (const Op& op : ops) {
    if (op.kind == OpKind::rope_fwd) {
      ++c.fwd;
      c.fwd_bytes += op.bytes;
    }
    if (op.kind == OpKind::rope_bwd) ++c.bwd;
  }
  return c;
}

TEST(Rotary, OnePassPerLayerAndMicroBatchOverQueryAndKey) {
  for (int tp : {1, 2}) {
    Config c;
    c.moe = true;  // tiny_moe: RMSNorm, GQA (8 heads, 4 KV heads), no learned positions
    c.tp = tp;
    c.sp = tp > 1;
    const WorkloadPlan plan = testing::make_plan(c);
    const Counts n = count(testing::ops_of(plan, 0));
    const int passes = plan.model().layers * static_cast<int>(plan.microbatches());
    EXPECT_EQ(n.fwd, passes) << "tp " << tp;
    EXPECT_EQ(n.bwd, passes) << "tp " << tp;
    // tokens x (q + k) per GPU, read and written in 16 bits.
    const std::int64_t tokens = 128, q = 8 * 32 / tp, k = 4 * 32 / tp;
    EXPECT_EQ(n.fwd_bytes, static_cast<std::uint64_t>(passes * tokens * (q + k) * 2 * 2)) << "tp " << tp;
  }
  Config full;
  full.moe = true;
  full.recompute = Recompute::full;
  const WorkloadPlan plan = testing::make_plan(full);
  const Counts n = count(testing::ops_of(plan, 0));
  EXPECT_EQ(n.fwd, 2 * plan.model().layers * static_cast<int>(plan.microbatches())) << "re-run by full recompute";
}

TEST(Rotary, LearnedPositionsHaveNone) {
  const Counts n = count(testing::ops_of(testing::make_plan(Config{}), 0));  // tiny_gpt: LayerNorm, learned positions
  EXPECT_EQ(n.fwd + n.bwd, 0);
}

}  // namespace
}  // namespace pf::models::workload
