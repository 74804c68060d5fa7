// A 16,384-GPU plan costs kilobytes per GPU: the plan does not grow with the
// GPU count and each program is a cursor, not a list.
#include <gtest/gtest.h>

#include "models/workload/gpu_program.h"
#include "tests/unit/workload/test_models.h"

namespace pf::models::workload {
namespace {

using namespace pf::models::testing;

std::size_t plan_bytes(const WorkloadPlan& plan) {
  std::size_t bytes = sizeof plan + plan.vstages() * 2 * sizeof(int);
  for (int u = 0; u < kUnitIdCount; ++u) bytes += plan.unit(static_cast<UnitId>(u)).ops.capacity() * sizeof(OpTemplate);
  return bytes;
}

std::size_t program_bytes(const WorkloadPlan& plan) {
  return sizeof(GpuProgram) + static_cast<std::size_t>(plan.max_unit_size()) * sizeof(std::uint32_t);
}

// GPT-3 175B on 16,384 GPUs: tp 8, pp 16, dp 128 (1,536 sequences of 2,048).
TEST(ProgramSize, SixteenThousandGpusCostKilobytes) {
  ParallelismSpec par;
  par.tp = 8;
  par.pp = 16;
  par.dp = 128;
  par.sequence_parallel = true;
  par.zero_stage = 1;
  TrainingSpec t;
  t.global_batch_size = 1536;
  t.seq_length = 2048;
  WorkloadPlan big(gpt3_175b(), par, t);
  ASSERT_EQ(big.world_size(), 16384);
  par.dp = 1;
  t.global_batch_size = 12;
  WorkloadPlan small(gpt3_175b(), par, t);
  EXPECT_EQ(plan_bytes(big), plan_bytes(small)) << "plan size independent of the GPU count";
  EXPECT_LT(plan_bytes(big), 64u * 1024);
  EXPECT_LT(program_bytes(big), 2u * 1024);

  // Stream two whole programs: 12 micro-batches x 6 layers x (fwd + bwd).
  for (int gpu : {0, 16383}) {
    GpuProgram p(big, gpu);
    Op op;
    std::uint64_t n = 0;
    double flops = 0;
    while (p.next(op)) {
      ++n;
      if (is_matmul(op.kind)) flops += op.flops;
    }
    std::uint64_t per_layer = big.unit(UnitId::dense_fwd).ops.size() + big.unit(UnitId::dense_bwd).ops.size();
    std::uint64_t layer_ops = 12u * 6 * per_layer;
    EXPECT_GE(n, layer_ops);
    EXPECT_LT(n, layer_ops + 1000);  // p2p, embedding or head, gradient buckets, optimizer
    EXPECT_GT(flops, 0);
  }
}

}  // namespace
}  // namespace pf::models::workload
