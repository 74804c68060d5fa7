// Every GPU's op sequence is a pure function of the configuration: whichever
// MPI rank generates it, in whichever order, it is the same. Each rank hashes
// every GPU's program, visiting GPUs in a rank-dependent order, and the
// digests are compared across ranks.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/communicator.h"
#include "models/workload/gpu_program.h"
#include "models/workload/workload_plan.h"
#include "tests/unit/workload/test_models.h"

namespace pf {
namespace {

using namespace models;

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xFF51AFD7ED558CCDull;
}

std::uint64_t program_digest(const workload::WorkloadPlan& plan, int gpu) {
  workload::GpuProgram program(plan, gpu);
  workload::Op op;
  std::uint64_t h = static_cast<std::uint64_t>(gpu) + 1;
  while (program.next(op)) {
    std::uint64_t flops_bits;
    std::memcpy(&flops_bits, &op.flops, sizeof flops_bits);
    for (std::uint64_t v : {std::uint64_t{op.id}, static_cast<std::uint64_t>(op.kind), static_cast<std::uint64_t>(op.phase),
                            static_cast<std::uint64_t>(op.stream), static_cast<std::uint64_t>(op.layer + 1),
                            static_cast<std::uint64_t>(op.microbatch + 1), flops_bits, op.bytes,
                            std::uint64_t{op.group.raw()}, std::uint64_t{op.seq}, static_cast<std::uint64_t>(op.peer + 1)})
      h = mix(h, v);
    for (std::uint8_t d = 0; d < op.dep_count; ++d) h = mix(h, op.deps[d]);
  }
  return h;
}

TEST(WorkloadDeterminism, EveryRankGeneratesTheSameProgramsInAnyOrder) {
  const core::Communicator world = core::Communicator::world();
  ParallelismSpec par;
  par.tp = 2;
  par.pp = 4;
  par.dp = 4;
  par.sequence_parallel = true;
  par.pipeline_schedule = PipelineSchedule::interleaved;
  par.virtual_stages = 2;
  par.zero_stage = 1;
  TrainingSpec train;
  train.global_batch_size = 32;
  train.seq_length = 1024;
  train.recompute = Recompute::selective;
  const workload::WorkloadPlan plan(testing::tiny_gpt(8), par, train);
  const int gpus = par.tp * par.pp * par.dp;

  std::vector<std::uint64_t> digests(static_cast<std::size_t>(gpus));
  // Rank r starts at GPU r * 7 and walks backwards on odd ranks.
  for (int i = 0; i < gpus; ++i) {
    int step = world.rank() % 2 ? gpus - 1 - i : i;
    int gpu = (step + world.rank() * 7) % gpus;
    digests[static_cast<std::size_t>(gpu)] = program_digest(plan, gpu);
  }
  std::string mine;
  for (std::uint64_t d : digests) mine += std::to_string(d) + ",";
  const std::vector<std::string> all = world.all_gather(mine);
  for (std::size_t r = 1; r < all.size(); ++r) EXPECT_EQ(all[r], all[0]) << "rank " << r << " generated other programs";
  // And the programs differ between GPUs (the digest sees the content).
  EXPECT_NE(digests[0], digests[static_cast<std::size_t>(gpus - 1)]);
}

}  // namespace
}  // namespace pf
