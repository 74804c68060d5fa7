// The optimizer step's memory traffic follows the precisions of what Adam
// keeps (training.optimizer_states): one GPU, every parameter updated.
#include <gtest/gtest.h>

#include <cstdint>

#include "tests/unit/workload/program_fixture.h"

namespace pf::models::workload {
namespace {

std::uint64_t optimizer_step_bytes(const OptimizerStates& states, double* elems) {
  WorkloadPlan base = testing::make_plan({});
  TrainingSpec t = base.training();
  t.optimizer_states = states;
  WorkloadPlan plan(base.model(), base.parallelism(), t);
  for (const Op& op : testing::ops_of(plan, 0)) {
    if (op.kind != OpKind::optimizer_step) continue;
    *elems = static_cast<double>(op.shape.rows.rows);
    return op.bytes;
  }
  ADD_FAILURE() << "no optimizer step";
  return 0;
}

// Per parameter: the fp32 main gradient read twice (clipping's norm, then
// Adam), the states read and written, the bf16 weight written: 2 x 4 +
// 2 x (4 + 4 + 4) + 2 = 34 bytes by default. Remainders of the bf16 weight
// (2 bytes) instead of an fp32 master, and bf16 moments: 2 x 4 + 2 x (2 + 2 +
// 2) + 2, plus the weight read back to rebuild the fp32 value = 24.
TEST(OptimizerStep, BytesFollowTheStatePrecisions) {
  double elems = 0;
  const std::uint64_t full = optimizer_step_bytes({}, &elems);
  ASSERT_GT(elems, 0);
  EXPECT_DOUBLE_EQ(static_cast<double>(full), 34 * elems);
  const std::uint64_t low = optimizer_step_bytes({StateDtype::fp32, true, StateDtype::bf16, StateDtype::bf16}, &elems);
  EXPECT_DOUBLE_EQ(static_cast<double>(low), 24 * elems);
}

}  // namespace
}  // namespace pf::models::workload
