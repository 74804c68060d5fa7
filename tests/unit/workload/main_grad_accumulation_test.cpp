// training.main_grad_accumulation: the kernels that add each micro-batch's
// weight gradients into the fp32 main gradients when the weight-gradient GEMMs
// do not (models/workload/main_grad_accumulation.h).
#include <gtest/gtest.h>

#include <set>

#include "models/workload/main_grad_accumulation.h"
#include "models/workload/stage_params.h"
#include "tests/unit/workload/program_fixture.h"

namespace pf::models::workload {
namespace {

using testing::Config;
using testing::is_grad_reduce;

WorkloadPlan plan_with(const Config& c, MainGradAccumulation mode, Dtype dtype = Dtype::bf16) {
  return testing::make_plan_with(c, [mode, dtype](TrainingSpec& t) {
    t.main_grad_accumulation = mode;
    t.dtype = dtype;
  });
}

struct Accumulated {
  double bytes = 0;
  std::int64_t launches = 0;
  int ops = 0;
};

Accumulated accumulated(const std::vector<Op>& ops) {
  Accumulated a;
  for (const Op& o : ops) {
    if (o.kind != OpKind::main_grad_accumulate) continue;
    a.bytes += static_cast<double>(o.bytes);
    a.launches += o.launches;
    ++a.ops;
  }
  return a;
}

std::int64_t reduced(const std::vector<Op>& ops) {
  std::int64_t sum = 0;
  for (const Op& o : ops)
    if (is_grad_reduce(o)) sum += static_cast<std::int64_t>(o.bytes);
  return sum;
}

// Every micro-batch's backward passes over every local parameter once: 18
// bytes each for DeepSpeed's cast-and-add, 10 for Megatron's unfused add.
TEST(MainGradAccumulation, EveryMicroBatchPassesOverEveryLocalParameter) {
  Config c;
  c.moe = true, c.dp = 4, c.ep = 2, c.pp = 2, c.zero = 1;
  for (auto [mode, bytes] : {std::pair{MainGradAccumulation::cast_add, 18.0}, {MainGradAccumulation::add, 10.0}}) {
    const WorkloadPlan plan = plan_with(c, mode);
    ASSERT_EQ(plan.grad_bytes(), 4);
    for (int gpu : {0, 7}) {
      const StageParams sp = stage_params(plan, plan.layout().coords(gpu).pp);
      const Accumulated a = accumulated(testing::ops_of(plan, gpu));
      const double params = static_cast<double>(sp.dense + sp.expert);
      EXPECT_NEAR(a.bytes, bytes * params * static_cast<double>(plan.microbatches()), 1.0 * a.ops) << gpu;
    }
  }
}

// Fused accumulation (the default), and 16-bit main gradients (fp16 training,
// whose gradients autograd sums in place), add no kernel.
TEST(MainGradAccumulation, NoKernelWhenFusedOrSixteenBit) {
  Config c;
  c.dp = 2;
  EXPECT_EQ(accumulated(testing::ops_of(plan_with(c, MainGradAccumulation::fused), 0)).ops, 0);
  const WorkloadPlan fp16 = plan_with(c, MainGradAccumulation::cast_add, Dtype::fp16);
  ASSERT_EQ(fp16.grad_bytes(), 2);
  EXPECT_EQ(accumulated(testing::ops_of(fp16, 0)).ops, 0);
  EXPECT_EQ(main_grad_accumulation_bytes(MainGradAccumulation::cast_add, 2), 0);
}

// The cast and the add are two kernels per tensor, the unfused add one: the
// host issues twice as many.
TEST(MainGradAccumulation, CastAndAddLaunchTwiceAsMany) {
  Config c;
  c.dp = 2;
  const Accumulated cast_add = accumulated(testing::ops_of(plan_with(c, MainGradAccumulation::cast_add), 0));
  const Accumulated add = accumulated(testing::ops_of(plan_with(c, MainGradAccumulation::add), 0));
  ASSERT_GT(add.launches, 0);
  EXPECT_EQ(cast_add.launches, 2 * add.launches);
}

// The data-parallel reduction sends the accumulated main gradients: the same
// bytes as with fused accumulation, and every reduce waits for an accumulation.
TEST(MainGradAccumulation, ReductionsWaitForTheAccumulatedGradients) {
  for (int zero : {0, 1, 2}) {
    Config c;
    c.moe = true, c.dp = 4, c.ep = 2, c.pp = 2, c.zero = zero;
    const WorkloadPlan fused = plan_with(c, MainGradAccumulation::fused);
    const WorkloadPlan separate = plan_with(c, MainGradAccumulation::cast_add);
    for (int gpu : {0, 7}) {
      const std::vector<Op> ops = testing::ops_of(separate, gpu);
      EXPECT_EQ(reduced(ops), reduced(testing::ops_of(fused, gpu))) << c.name();
      std::set<std::uint32_t> accumulations;
      for (const Op& o : ops)
        if (o.kind == OpKind::main_grad_accumulate) accumulations.insert(o.id);
      for (const Op& o : ops) {
        if (!is_grad_reduce(o)) continue;
        bool waits = false;
        for (int d = 0; d < o.dep_count; ++d) waits = waits || accumulations.count(o.deps[static_cast<std::size_t>(d)]) > 0;
        EXPECT_TRUE(waits) << c.name() << " reduce " << o.id;
      }
    }
  }
}

// The programs still run to completion (no op waits for one that never comes).
TEST(MainGradAccumulation, ProgramsComplete) {
  Config c;
  c.moe = true, c.dp = 4, c.ep = 2, c.pp = 2, c.v = 2, c.zero = 1;
  c.layers = 8;
  const WorkloadPlan plan = plan_with(c, MainGradAccumulation::cast_add);
  EXPECT_EQ(testing::dry_run(plan, testing::all_ops(plan)), 0u);
}

}  // namespace
}  // namespace pf::models::workload
