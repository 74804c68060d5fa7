// training.pp_send_wait: which compute op waits for a pipeline send
// (models/workload/gpu_program.cpp, hold_compute_for_send).
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "tests/unit/workload/program_fixture.h"

namespace pf::models::workload {
namespace {

using testing::Config;

WorkloadPlan plan_with(const Config& c, PpSendWait wait) {
  return testing::make_plan_with(c, [wait](TrainingSpec& t) { t.pp_send_wait = wait; });
}

bool depends_on(const Op& o, std::uint32_t id) {
  for (int d = 0; d < o.dep_count; ++d)
    if (o.deps[static_cast<std::size_t>(d)] == id) return true;
  return false;
}

// For each send of the GPU, the compute ops that wait for it (in issue order).
std::map<std::uint32_t, std::vector<Op>> waiters(const std::vector<Op>& ops) {
  std::map<std::uint32_t, std::vector<Op>> w;
  for (const Op& s : ops) {
    if (s.kind != OpKind::pp_send) continue;
    w[s.id];
    for (const Op& o : ops)
      if (o.stream == Stream::compute && depends_on(o, s.id)) w[s.id].push_back(o);
  }
  return w;
}

// Blocking (Megatron-Core's non-interleaved 1F1B, DeepSpeed): every send is
// waited for by the very next compute op the GPU issues, in the same step
// direction's successor, and nothing else.
TEST(PpSendWait, BlockingHoldsTheNextKernel) {
  Config c;
  c.pp = 4, c.global_batch = 8;
  for (const PpSendWait mode : {PpSendWait::blocking, PpSendWait::automatic}) {
    const WorkloadPlan plan = plan_with(c, mode);
    for (int gpu : {0, 1, 2}) {
      const std::vector<Op> ops = testing::ops_of(plan, gpu);
      const auto w = waiters(ops);
      ASSERT_FALSE(w.empty()) << gpu;
      for (const auto& [send, held] : w) {
        // The last send of the step has no compute after it in the steps.
        std::uint32_t next_compute = 0;
        for (const Op& o : ops)
          if (o.id > send && o.stream == Stream::compute && o.phase != Phase::opt) {
            next_compute = o.id;
            break;
          }
        if (next_compute == 0) continue;
        ASSERT_EQ(held.size(), 1u) << "gpu " << gpu << " send " << send;
        EXPECT_EQ(held[0].id, next_compute) << "gpu " << gpu << " send " << send;
      }
    }
  }
}

// Deferred (Megatron-Core's interleaved schedule with overlap_p2p_comm): a
// send is waited for once the next send of its direction is posted, by the
// compute op after that one; the last send of each direction by the first
// compute op after the steps (the schedule's closing wait, which stands in
// for the sends before it that nothing has waited for yet: NCCL completes a
// communicator's operations in order).
TEST(PpSendWait, DeferredHoldsTheKernelAfterTheNextSendOfItsDirection) {
  Config c;
  c.pp = 2, c.v = 2, c.layers = 4, c.global_batch = 4;
  for (const PpSendWait mode : {PpSendWait::deferred, PpSendWait::automatic}) {
    const WorkloadPlan plan = plan_with(c, mode);
    for (int gpu : {0, 1}) {
      const std::vector<Op> ops = testing::ops_of(plan, gpu);
      std::map<bool, std::vector<std::uint32_t>> sends;  // by direction
      for (const Op& o : ops)
        if (o.kind == OpKind::pp_send) sends[o.phase == Phase::fwd].push_back(o.id);
      const auto w = waiters(ops);
      for (const auto& [fwd, ids] : sends) {
        ASSERT_GE(ids.size(), 2u);
        // The one before the last is covered by the closing wait on the last
        // (a communicator's sends complete in order) when no compute op
        // separates them; every other send is held as below.
        for (std::size_t i = 0; i + 2 < ids.size(); ++i) {
          const auto& held = w.at(ids[i]);
          ASSERT_EQ(held.size(), 1u) << "gpu " << gpu << " send " << ids[i];
          EXPECT_GT(held[0].id, ids[i + 1]) << "waited only after the next send of its direction";
          for (const Op& o : ops) {  // ... by the first compute op after it
            if (o.id > ids[i + 1] && o.id < held[0].id) {
              EXPECT_NE(o.stream, Stream::compute);
            }
          }
        }
        const auto& last = w.at(ids.back());
        ASSERT_EQ(last.size(), 1u) << "gpu " << gpu;
        EXPECT_EQ(last[0].phase, Phase::opt);
        for (const Op& o : ops) {  // the first compute op after the steps
          if (o.stream == Stream::compute && o.phase == Phase::opt) {
            EXPECT_EQ(o.id, last[0].id);
            break;
          }
        }
      }
    }
  }
}

// Background (torch.distributed.pipelining): no compute op waits for a send,
// and the programs still complete.
TEST(PpSendWait, BackgroundHoldsNothing) {
  Config c;
  c.pp = 4, c.global_batch = 8;
  const WorkloadPlan plan = plan_with(c, PpSendWait::background);
  for (int gpu = 0; gpu < 4; ++gpu) {
    for (const auto& [send, held] : waiters(testing::ops_of(plan, gpu))) EXPECT_TRUE(held.empty()) << send;
  }
  for (const PpSendWait mode : {PpSendWait::blocking, PpSendWait::deferred, PpSendWait::background}) {
    const WorkloadPlan p = plan_with(c, mode);
    EXPECT_EQ(testing::dry_run(p, testing::all_ops(p)), 0u);
  }
}

// Every mode completes on every GPU of plans whose ops carry many
// dependencies already (fp8 delayed scaling's amax all-reduce, ZeRO-1
// reductions, interleaved chunks, MoE): a wait that finds the next compute
// op's dependencies full moves to the op after it instead of failing.
TEST(PpSendWait, EveryModeCompletesOnCrowdedPlans) {
  Config fp8;
  fp8.pp = 2, fp8.v = 2, fp8.dp = 2, fp8.zero = 1, fp8.tp = 2, fp8.sp = true, fp8.fp8 = true;
  fp8.recipe = Fp8Recipe::delayed, fp8.layers = 4, fp8.global_batch = 8;
  Config moe = fp8;
  moe.moe = true, moe.ep = 2, moe.fp8 = false;
  for (const Config& c : {fp8, moe}) {
    for (const PpSendWait mode : {PpSendWait::blocking, PpSendWait::deferred, PpSendWait::background}) {
      const WorkloadPlan p = plan_with(c, mode);
      std::vector<std::vector<Op>> ops;
      ASSERT_NO_THROW(ops = testing::all_ops(p)) << c.name();
      EXPECT_EQ(testing::dry_run(p, ops), 0u) << c.name();
    }
  }
}

}  // namespace
}  // namespace pf::models::workload
