// Combined 1F1B (training.overlap_moe_expert_parallel_comm): the schedule's
// extra warm-up forward, and the op order of a combined step against
// Megatron-Core's TransformerLayerSchedulePlan.run.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "models/workload/schedule.h"
#include "tests/unit/workload/program_fixture.h"

namespace pf::models::workload {
namespace {

using testing::Config;

TEST(Combined1F1B, OneMoreWarmupForwardAndEverySteadyForwardPairsWithTheNextBackward) {
  for (auto [pp, v, m] : {std::tuple{1, 1, 4}, std::tuple{2, 2, 4}, std::tuple{4, 3, 8}}) {
    for (int stage = 0; stage < pp; ++stage) {
      const StageSchedule plain(pp, stage, m, v), combined(pp, stage, m, v, true);
      EXPECT_EQ(combined.warmup(), std::min(plain.warmup() + 1, m * v)) << pp << " " << v << " " << stage;
      std::set<std::pair<int, int>> forwarded;  // (micro-batch, chunk)
      int pairs = 0;
      for (int i = 0; i < combined.steps(); ++i) {
        const ScheduleStep s = combined.step(i);
        if (s.forward) forwarded.insert({s.microbatch, s.chunk});
        EXPECT_FALSE(plain.combined_with_next(i));
        if (!combined.combined_with_next(i)) continue;
        ++pairs;
        const ScheduleStep b = combined.step(i + 1);
        ASSERT_TRUE(s.forward);
        ASSERT_FALSE(b.forward);
        // The backward's forward ran in an earlier step: the two are independent.
        EXPECT_TRUE(forwarded.count({b.microbatch, b.chunk}) == 1 && !(b.microbatch == s.microbatch && b.chunk == s.chunk));
        EXPECT_FALSE(combined.combined_with_next(i + 1));
      }
      EXPECT_EQ(pairs, m * v - combined.warmup());
    }
  }
}

// What an op is, for reading the order: pass, layer and kind.
struct Seen {
  bool forward;
  int layer;
  OpKind kind;
};

// The ops of the combined step of micro-batch 1's forward and micro-batch 0's
// backward on GPU 0 of a pp 1 plan of 3 layers (a dense one, then two MoE
// layers with a shared expert; EP 2, 3 micro-batches).
std::vector<Seen> combined_step_ops(bool delay) {
  Config c;
  c.moe = true, c.layers = 3, c.dp = 2, c.ep = 2, c.global_batch = 6, c.a2a_overlap = true;
  WorkloadPlan plan = testing::make_plan(c);
  if (!delay) {
    TrainingSpec t = plan.training();
    t.delay_wgrad_compute = false;
    plan = WorkloadPlan(plan.model(), plan.parallelism(), t);
  }
  std::vector<Seen> out;
  for (const Op& o : testing::ops_of(plan, 0)) {
    const bool f1 = o.phase == Phase::fwd && o.microbatch == 1, b0 = o.phase == Phase::bwd && o.microbatch == 0;
    if (f1 || b0) out.push_back({f1, o.layer, o.kind});
  }
  return out;
}

int position(const std::vector<Seen>& ops, bool forward, int layer, OpKind kind) {
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].forward == forward && ops[i].layer == layer && ops[i].kind == kind) return static_cast<int>(i);
  }
  return -1;
}

int last_position(const std::vector<Seen>& ops, bool forward, int layer, OpKind kind) {
  int at = -1;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].forward == forward && ops[i].layer == layer && ops[i].kind == kind) at = static_cast<int>(i);
  }
  return at;
}

TEST(Combined1F1B, EachLayerPairInterleavesAsMegatronCoreOrdersIt) {
  const std::vector<Seen> ops = combined_step_ops(true);
  ASSERT_FALSE(ops.empty());
  // The two passes interleave: both appear, the forward's embedding first.
  EXPECT_TRUE(ops.front().forward);
  EXPECT_EQ(ops.front().kind, OpKind::embedding_fwd);
  // The all-to-alls of the pairs (forward layer i beside backward layer 2 - i;
  // layer 0 is dense): per pair B combine, F dispatch, B dispatch, F combine.
  std::vector<std::pair<bool, int>> a2a;
  for (const Seen& s : ops) {
    if (s.kind == OpKind::ep_dispatch || s.kind == OpKind::ep_combine) a2a.push_back({s.forward, s.layer});
  }
  const std::vector<std::pair<bool, int>> expected = {{false, 2}, {false, 2}, {false, 1}, {true, 1},
                                                      {false, 1}, {true, 1}, {true, 2}, {true, 2}};
  EXPECT_EQ(a2a, expected);
  // The MoE pair, forward and backward layer 1.
  const int f_dispatch = position(ops, true, 1, OpKind::ep_dispatch);
  const int f_combine = position(ops, true, 1, OpKind::ep_combine);
  const int b_combine = position(ops, false, 1, OpKind::ep_combine);
  const int b_dispatch = position(ops, false, 1, OpKind::ep_dispatch);
  // While the forward's tokens are dispatched the backward's experts (shared
  // one first) run; the forward's experts (shared one first) while the
  // backward's gradients are dispatched.
  EXPECT_LT(f_dispatch, position(ops, false, 1, OpKind::mlp_fc2_dgrad));
  EXPECT_LT(position(ops, false, 1, OpKind::mlp_fc2_dgrad), position(ops, false, 1, OpKind::expert_fc2_dgrad));
  EXPECT_LT(position(ops, false, 1, OpKind::expert_fc1_wgrad), b_dispatch);
  EXPECT_LT(b_dispatch, position(ops, true, 1, OpKind::mlp_fc1_fwd));
  EXPECT_LT(position(ops, true, 1, OpKind::mlp_fc1_fwd), position(ops, true, 1, OpKind::expert_fc1_fwd));
  // The forward's attention and router run while the backward's combine
  // moves, the backward's router and attention while the forward's does.
  EXPECT_LT(b_combine, position(ops, true, 1, OpKind::qkv_fwd));
  EXPECT_LT(position(ops, true, 1, OpKind::router_fwd), f_dispatch);
  EXPECT_LT(f_combine, position(ops, false, 1, OpKind::router_dgrad));
  EXPECT_LT(position(ops, false, 1, OpKind::router_dgrad), position(ops, false, 1, OpKind::qkv_dgrad));
  // The forward's unpermute waits for its combine: it is issued after the
  // backward's attention, not ahead of it on the compute stream.
  EXPECT_GT(position(ops, true, 1, OpKind::moe_unpermute_fwd), position(ops, false, 1, OpKind::qkv_dgrad));
  EXPECT_LT(position(ops, true, 1, OpKind::moe_unpermute_fwd), position(ops, true, 2, OpKind::qkv_fwd));
  // A dense layer beside a MoE one: its attention, then the other's experts,
  // then its MLP.
  EXPECT_LT(position(ops, true, 0, OpKind::qkv_fwd), position(ops, false, 2, OpKind::expert_fc2_dgrad));
  EXPECT_GT(position(ops, true, 0, OpKind::mlp_fc1_fwd), position(ops, false, 2, OpKind::ep_dispatch));
  // The head's loss of the forward and the embedding gradient of the backward close the step.
  EXPECT_GT(position(ops, true, -1, OpKind::loss_fwd), last_position(ops, true, 2, OpKind::residual_fwd));
  EXPECT_EQ(ops.back().kind, OpKind::embedding_bwd);
}

TEST(Combined1F1B, DelayedWeightGradientsFollowTheInputGradients) {
  for (const bool delay : {false, true}) {
    const std::vector<Seen> ops = combined_step_ops(delay);
    // The experts' piece: without the delay autograd runs each weight gradient
    // beside its input gradient; with it they follow the reorder by expert
    // that the dispatch's all-to-all waits for, so it no longer waits for them.
    const int unsort = last_position(ops, false, 1, OpKind::moe_sort_bwd);
    const int dispatch = position(ops, false, 1, OpKind::ep_dispatch);
    ASSERT_GE(unsort, 0);
    for (OpKind wgrad : {OpKind::expert_fc1_wgrad, OpKind::expert_fc2_wgrad}) {
      const int at = position(ops, false, 1, wgrad);
      EXPECT_EQ(at > unsort, delay) << kind_name(wgrad);
      EXPECT_LT(at, dispatch);  // still in the experts' piece
    }
    EXPECT_EQ(position(ops, false, 1, OpKind::expert_fc2_wgrad) < position(ops, false, 1, OpKind::expert_fc1_dgrad),
              !delay);
    // The attention's: the layer's input gradient (its input norm's backward)
    // comes before the projections' weight gradients when delayed.
    const int input_grad = last_position(ops, false, 1, OpKind::norm_bwd);
    EXPECT_EQ(position(ops, false, 1, OpKind::qkv_wgrad) > input_grad, delay);
    EXPECT_EQ(position(ops, false, 1, OpKind::attn_proj_wgrad) > input_grad, delay);
  }
}

TEST(Combined1F1B, ConfigurationsMegatronCoreRefusesAreErrors) {
  auto plan_with = [](Config c) { return testing::make_plan(c); };
  Config ok;
  ok.moe = true, ok.dp = 2, ok.ep = 2, ok.a2a_overlap = true;
  EXPECT_NO_THROW(plan_with(ok));
  Config dense = ok;
  dense.moe = false, dense.ep = 1;
  EXPECT_THROW(plan_with(dense), ConfigError);  // no expert parallelism
  Config plain_pp = ok;
  plain_pp.pp = 2;
  EXPECT_THROW(plan_with(plain_pp), ConfigError);  // pp > 1 without virtual stages
  plain_pp.v = 2;
  EXPECT_NO_THROW(plan_with(plain_pp));
  Config full = ok;
  full.recompute = Recompute::full;
  EXPECT_THROW(plan_with(full), ConfigError);
  Config zero3 = ok;
  zero3.zero = 3;
  EXPECT_THROW(plan_with(zero3), ConfigError);
}

}  // namespace
}  // namespace pf::models::workload
