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

// The ops over the token copies an EP rank receives.
bool on_received_rows(OpKind k) {
  switch (k) {
    case OpKind::expert_fc1_fwd: case OpKind::expert_fc2_fwd: case OpKind::expert_fc1_dgrad:
    case OpKind::expert_fc2_dgrad: case OpKind::expert_fc1_wgrad: case OpKind::expert_fc2_wgrad:
    case OpKind::expert_act_fwd: case OpKind::expert_act_bwd: case OpKind::moe_sort_fwd: case OpKind::moe_sort_bwd:
    case OpKind::ep_probs_exchange: return true;
    default: return false;
  }
}

// training.moe_load_imbalance prices every rank as the busiest: its experts
// take imbalance x the mean token copies (rounded up to 16 rows per local
// expert) and the token all-to-alls carry its share; what each rank sends,
// permutes and unpermutes is its own balanced share.
TEST(MoeLoadImbalance, TheBusiestRankSetsTheExpertsAndTheAllToAlls) {
  for (int ep : {2, 4}) {
    testing::Config c;
    c.moe = true;  // tiny_moe: 4 experts, top-2
    c.dp = 4;
    c.ep = ep;
    const WorkloadPlan balanced = testing::make_plan(c);
    c.moe_imbalance = 1.5;
    const WorkloadPlan skewed = testing::make_plan(c);
    const LocalDims &b = balanced.dims(), &s = skewed.dims();
    const std::int64_t local = 4 / ep, tile = 16 * local;
    EXPECT_EQ(b.received_tokens, b.routed_tokens) << "ep " << ep;
    EXPECT_EQ(s.routed_tokens, b.routed_tokens) << "ep " << ep;
    EXPECT_GE(2 * s.received_tokens, 3 * b.routed_tokens) << "ep " << ep;
    EXPECT_LT(2 * s.received_tokens, 3 * b.routed_tokens + 2 * tile) << "ep " << ep;
    EXPECT_EQ(s.received_tokens % tile, 0) << "ep " << ep;
    EXPECT_EQ(s.expert_rows, s.received_tokens) << "ep " << ep;

    const std::vector<Op> ob = testing::ops_of(balanced, 0), os = testing::ops_of(skewed, 0);
    ASSERT_EQ(ob.size(), os.size());
    int experts = 0, alltoalls = 0, permutes = 0;
    for (std::size_t i = 0; i < ob.size(); ++i) {
      const Op &x = ob[i], &y = os[i];
      ASSERT_EQ(x.kind, y.kind);
      if (x.kind == OpKind::expert_fc1_fwd || x.kind == OpKind::expert_fc2_dgrad) {
        EXPECT_EQ(x.shape.gemm.M * s.received_tokens, y.shape.gemm.M * b.routed_tokens) << "ep " << ep;
        ++experts;
      } else if (x.kind == OpKind::ep_dispatch || x.kind == OpKind::ep_combine) {
        EXPECT_EQ(static_cast<std::int64_t>(x.bytes) * s.received_tokens,
                  static_cast<std::int64_t>(y.bytes) * b.routed_tokens) << "ep " << ep;
        ++alltoalls;
      } else if (x.kind == OpKind::moe_permute_fwd || x.kind == OpKind::moe_unpermute_fwd) {
        EXPECT_EQ(x.shape.rows, y.shape.rows) << "ep " << ep;
        ++permutes;
      } else if (!on_received_rows(x.kind)) {
        EXPECT_EQ(x.bytes, y.bytes) << kind_name(x.kind) << " ep " << ep;  // nothing else moves
        EXPECT_EQ(x.shape, y.shape) << kind_name(x.kind) << " ep " << ep;
      }
    }
    EXPECT_GT(experts, 0);
    EXPECT_GT(alltoalls, 0);
    EXPECT_GT(permutes, 0);
  }
}

}  // namespace
}  // namespace pf::models::workload

namespace pf::models::workload {
namespace {

// Host issues per (kind, phase) over the MoE layer `layer` of micro-batch 0.
std::map<std::pair<OpKind, Phase>, int> launches_by_kind(const std::vector<Op>& ops, int layer) {
  std::map<std::pair<OpKind, Phase>, int> out;
  for (const Op& op : ops)
    if (op.layer == layer && op.microbatch == 0 && !op.recompute) out[{op.kind, op.phase}] += op.launches;
  return out;
}

int ops_of_kind(const std::vector<Op>& ops, OpKind kind, Phase phase, int layer) {
  int n = 0;
  for (const Op& op : ops) n += op.kind == kind && op.phase == phase && op.layer == layer && op.microbatch == 0;
  return n;
}

// TE GroupedLinear launches one cuBLAS GEMM per local expert (Transformer
// Engine v2.9, cublaslt_gemm.cu multi_stream_cublas_gemm): the expert GEMMs
// cost the host experts_local issues each; every other GEMM is one launch.
TEST(MoeKernelInventory, ExpertGemmsLaunchOneKernelPerLocalExpert) {
  for (int ep : {1, 2, 4}) {
    testing::Config c;
    c.moe = true;  // 4 experts
    c.dp = 4;
    c.ep = ep;
    const WorkloadPlan plan = testing::make_plan(c);
    int experts_gemms = 0;
    for (const Op& op : testing::ops_of(plan, 0)) {
      if (op_class(op.kind) != OpClass::gemm) continue;
      const bool expert = op.kind >= OpKind::expert_fc1_fwd && op.kind <= OpKind::expert_fc2_wgrad &&
                          op.kind != OpKind::expert_act_fwd && op.kind != OpKind::expert_act_bwd;
      EXPECT_EQ(op.launches, expert ? 4 / ep : 1) << kind_name(op.kind) << " ep " << ep;
      experts_gemms += expert;
    }
    EXPECT_GT(experts_gemms, 0);
  }
}

// The Megatron-Core alltoall dispatcher's other traffic and kernels
// (moe_units.cpp lists the source lines): the token counts all-gathered over
// EP before the dispatch, the probabilities' own all-to-all forward and
// backward, the reordering by local expert only when a GPU holds several
// experts of an EP group, and the routing arithmetic's small kernels.
TEST(MoeKernelInventory, CountsProbabilitiesAndSortsTravelBesideTheTokens) {
  const int moe_layer = 1;  // tiny_moe: the first layer is dense
  for (int ep : {1, 2, 4}) {
    testing::Config c;
    c.moe = true;
    c.dp = 4;
    c.ep = ep;
    const WorkloadPlan plan = testing::make_plan(c);
    const LocalDims& d = plan.dims();
    const std::vector<Op> ops = testing::ops_of(plan, 0);
    const bool multi_ep = ep > 1, sorts = ep > 1 && 4 / ep > 1;
    EXPECT_EQ(ops_of_kind(ops, OpKind::ep_count_gather, Phase::fwd, moe_layer), multi_ep) << "ep " << ep;
    EXPECT_EQ(ops_of_kind(ops, OpKind::ep_count_gather, Phase::bwd, moe_layer), 0) << "ep " << ep;
    EXPECT_EQ(ops_of_kind(ops, OpKind::ep_probs_exchange, Phase::fwd, moe_layer), multi_ep) << "ep " << ep;
    EXPECT_EQ(ops_of_kind(ops, OpKind::ep_probs_exchange, Phase::bwd, moe_layer), multi_ep) << "ep " << ep;
    EXPECT_EQ(ops_of_kind(ops, OpKind::moe_sort_fwd, Phase::fwd, moe_layer), sorts ? 2 : 0) << "ep " << ep;
    EXPECT_EQ(ops_of_kind(ops, OpKind::moe_sort_bwd, Phase::bwd, moe_layer), sorts ? 2 : 0) << "ep " << ep;
    for (const Op& op : ops) {
      if (op.layer != moe_layer) continue;
      if (op.kind == OpKind::ep_count_gather) {
        EXPECT_EQ(op.bytes, static_cast<std::uint64_t>(ep * 4 * 8));
      }
      if (op.kind == OpKind::ep_probs_exchange) {
        EXPECT_EQ(op.bytes, static_cast<std::uint64_t>(d.routed_tokens * 2));
      }
      if (op.kind == OpKind::moe_sort_fwd || op.kind == OpKind::moe_sort_bwd) {
        EXPECT_EQ(op.bytes, static_cast<std::uint64_t>(d.expert_rows * d.hidden * 2 * 2));
      }
    }
    const auto l = launches_by_kind(ops, moe_layer);
    // Routing: 27 kernels of scores, top-k and aux loss and 6 of token counts
    // forward (3 of them after the EP gather when there is one); 14 backward.
    EXPECT_EQ(l.at({OpKind::moe_route_fwd, Phase::fwd}), 33) << "ep " << ep;
    EXPECT_EQ(l.at({OpKind::moe_route_bwd, Phase::bwd}), 14) << "ep " << ep;
    EXPECT_EQ(l.at({OpKind::moe_permute_fwd, Phase::fwd}), 4) << "ep " << ep;
    if (sorts) {
      EXPECT_EQ(l.at({OpKind::moe_sort_fwd, Phase::fwd}), 2 + 3) << "ep " << ep;
      EXPECT_EQ(l.at({OpKind::moe_sort_bwd, Phase::bwd}), 1 + 1) << "ep " << ep;
    }
  }
}

// fp8: quantising a grouped GEMM's input is one fused multi-tensor kernel
// under delayed scaling, one kernel per expert under mxfp8 and two (amax,
// cast) under tensorwise scaling, whose dense GEMMs also take two. Each is
// one framework call: the kernels after the first are TE's C++ launches.
TEST(MoeKernelInventory, Fp8QuantizeLaunchesFollowTheRecipe) {
  struct Case {
    Fp8Recipe recipe;
    int per_tensor;
    bool per_expert;
  };
  for (const Case k : {Case{Fp8Recipe::delayed, 1, false}, Case{Fp8Recipe::tensorwise, 2, true},
                       Case{Fp8Recipe::mxfp8, 1, true}}) {
    testing::Config c;
    c.moe = true;
    c.dp = 4;
    c.ep = 2;  // 2 local experts
    c.fp8 = true;
    c.recipe = k.recipe;
    const std::vector<Op> ops = testing::ops_of(testing::make_plan(c), 0);
    int grouped = 0, dense = 0;
    for (std::size_t i = 0; i + 1 < ops.size(); ++i) {
      if (ops[i].kind != OpKind::fp8_quantize) continue;
      const Op& gemm = ops[i + 1];  // the GEMM the quantisation feeds
      const bool expert = gemm.shape.gemm.batch > 1;
      EXPECT_EQ(ops[i].launches, 1) << kind_name(gemm.kind);
      EXPECT_EQ(ops[i].launches + ops[i].inner_launches, k.per_tensor * (expert && k.per_expert ? 2 : 1))
          << kind_name(gemm.kind);
      (expert ? grouped : dense)++;
    }
    EXPECT_GT(grouped, 0);
    EXPECT_GT(dense, 0);
  }
}

}  // namespace
}  // namespace pf::models::workload

namespace pf::models::workload {
namespace {

// Four replicas, EP 2: two local experts (the alltoall dispatcher sorts by expert).
testing::Config two_local_experts() {
  testing::Config c;
  c.moe = true;
  c.dp = 4;
  c.ep = 2;
  return c;
}

// The flex dispatcher (DeepEP, HybridEP) computes the layout in one kernel and
// carries probabilities and routing metadata inside its fused dispatch: no
// count gather, no probabilities all-to-all, no sort by expert.
TEST(MoeKernelInventory, FlexDispatcherHasNoCountGatherProbabilitiesOrSort) {
  WorkloadPlan alltoall = testing::make_plan(two_local_experts());
  ParallelismSpec p = alltoall.parallelism();
  TrainingSpec t = alltoall.training();
  t.moe_token_dispatcher = MoeTokenDispatcher::flex;
  const WorkloadPlan flex(alltoall.model(), p, t);
  for (const Op& op : testing::ops_of(flex, 0)) {
    EXPECT_NE(op.kind, OpKind::ep_count_gather);
    EXPECT_NE(op.kind, OpKind::ep_probs_exchange);
    EXPECT_NE(op.kind, OpKind::moe_sort_fwd);
    EXPECT_NE(op.kind, OpKind::moe_sort_bwd);
  }
  const auto a = launches_by_kind(testing::ops_of(alltoall, 0), 1), f = launches_by_kind(testing::ops_of(flex, 0), 1);
  EXPECT_EQ(f.at({OpKind::moe_route_fwd, Phase::fwd}), 27 + 1);
  EXPECT_EQ(a.at({OpKind::moe_route_fwd, Phase::fwd}), 27 + 6);
  EXPECT_EQ(f.at({OpKind::expert_fc1_fwd, Phase::fwd}), a.at({OpKind::expert_fc1_fwd, Phase::fwd}));
}

// Megatron-Core's --moe-router-fusion: the top-k routing (11 PyTorch kernels),
// the aux-loss scores (7) and the aux loss (4) become one Transformer Engine
// kernel each, forward and backward; the token counts and the dispatch are
// untouched.
TEST(MoeKernelInventory, RouterFusionRunsTopkScoresAndLossAsOneKernelEach) {
  WorkloadPlan plain = testing::make_plan(two_local_experts());
  TrainingSpec t = plain.training();
  t.moe_router_fusion = true;
  const WorkloadPlan fused(plain.model(), plain.parallelism(), t);
  const std::vector<Op> p_ops = testing::ops_of(plain, 0), f_ops = testing::ops_of(fused, 0);
  const auto a = launches_by_kind(p_ops, 1), f = launches_by_kind(f_ops, 1);
  EXPECT_EQ(a.at({OpKind::moe_route_fwd, Phase::fwd}), 27 + 6);
  EXPECT_EQ(f.at({OpKind::moe_route_fwd, Phase::fwd}), 27 - (11 + 7 + 4) + 3 + 6);
  EXPECT_EQ(a.at({OpKind::moe_route_bwd, Phase::bwd}), 14);
  EXPECT_EQ(f.at({OpKind::moe_route_bwd, Phase::bwd}), 6);
  for (OpKind k : {OpKind::moe_permute_fwd, OpKind::expert_fc1_fwd, OpKind::ep_dispatch}) {
    EXPECT_EQ(f.at({k, Phase::fwd}), a.at({k, Phase::fwd})) << kind_name(k);
  }
  // The fused kernels pass over the scores fewer times.
  auto route_bytes = [](const std::vector<Op>& ops, OpKind kind) {
    for (const Op& o : ops)
      if (o.kind == kind && o.layer == 1) return o.bytes;
    return std::uint64_t{0};
  };
  EXPECT_LT(route_bytes(f_ops, OpKind::moe_route_fwd), route_bytes(p_ops, OpKind::moe_route_fwd) / 2);
  EXPECT_LT(route_bytes(f_ops, OpKind::moe_route_bwd), route_bytes(p_ops, OpKind::moe_route_bwd));
  EXPECT_GT(route_bytes(f_ops, OpKind::moe_route_bwd), 0u);
}

// fp8 grouped GEMMs need each expert's rows padded to the GEMM's alignment:
// Transformer Engine's Fp8Padding copies the received rows (and their
// probabilities) into padded blocks before fc1 and Fp8Unpadding copies fc2's
// output back; the backward takes the reverse copies. Not in 16-bit
// training, not when the router pads the routing map
// (moe_router_padding_for_fp8) and not behind HybridEP, whose dispatch pads.
TEST(MoeKernelInventory, Fp8PaddingCopiesTheExpertRowsUnlessSomethingElsePads) {
  testing::Config c = two_local_experts();
  c.fp8 = true;
  c.recipe = Fp8Recipe::mxfp8;
  const WorkloadPlan plan = testing::make_plan(c);
  const LocalDims& d = plan.dims();
  const std::vector<Op> ops = testing::ops_of(plan, 0);
  int moe_layer = -1;
  for (const Op& op : ops)
    if (op.kind == OpKind::expert_fc1_fwd && moe_layer < 0) moe_layer = op.layer;
  ASSERT_GE(moe_layer, 0);
  const auto l = launches_by_kind(ops, moe_layer);
  EXPECT_EQ(ops_of_kind(ops, OpKind::moe_pad_fwd, Phase::fwd, moe_layer), 2);
  EXPECT_EQ(ops_of_kind(ops, OpKind::moe_pad_bwd, Phase::bwd, moe_layer), 2);
  EXPECT_EQ(l.at({OpKind::moe_pad_fwd, Phase::fwd}), 2 + 1);  // tokens + probabilities, then fc2's output
  EXPECT_EQ(l.at({OpKind::moe_pad_bwd, Phase::bwd}), 1 + 2);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    if (op.kind != OpKind::moe_pad_fwd && op.kind != OpKind::moe_pad_bwd) continue;
    // A read and a write of every received row, 16-bit and hidden wide.
    EXPECT_EQ(op.bytes, static_cast<std::uint64_t>(2 * 2 * d.expert_rows * d.hidden));
    if (op.layer == moe_layer && op.microbatch == 0 && op.phase == Phase::fwd && i + 2 < ops.size() &&
        ops[i + 1].kind == OpKind::fp8_quantize) {
      EXPECT_EQ(ops[i + 2].kind, OpKind::expert_fc1_fwd);  // the padded rows are what fc1 quantises
    }
  }

  auto pads = [](const WorkloadPlan& p) {
    int n = 0;
    for (const Op& op : testing::ops_of(p, 0)) n += op.kind == OpKind::moe_pad_fwd || op.kind == OpKind::moe_pad_bwd;
    return n;
  };
  EXPECT_GT(pads(plan), 0);
  TrainingSpec t = plan.training();
  t.moe_router_padding_for_fp8 = true;
  EXPECT_EQ(pads(WorkloadPlan(plan.model(), plan.parallelism(), t)), 0);
  t = plan.training();
  t.moe_token_dispatcher = MoeTokenDispatcher::flex;
  EXPECT_EQ(pads(WorkloadPlan(plan.model(), plan.parallelism(), t)), pads(plan));  // DeepEP: TE pads
  t.moe_flex_backend = MoeFlexBackend::hybridep;
  EXPECT_EQ(pads(WorkloadPlan(plan.model(), plan.parallelism(), t)), 0);
  c.fp8 = false;
  EXPECT_EQ(pads(testing::make_plan(c)), 0);
}

// A clamped gated activation (GPT-OSS: model.activation quick_geglu,
// activation_clamp 7) adds, before each routed experts' activation, the
// clamps of its two halves and their concatenation (8 16-bit passes of the
// expert width in 3 kernels) and, after the activation's backward, the
// gradients' masks (6 passes, 2 kernels); forward, recomputed or not, one
// more host issue (the linear offset's copy). Nothing else moves: quick_geglu
// without a clamp is priced as SwiGLU is, op for op, but for that issue.
TEST(MoeClampedGate, ClampsEachHalfBeforeTheActivationAndMasksTheGradients) {
  testing::Config c;
  c.moe = true;  // tiny_moe: SwiGLU experts
  c.dp = 2;
  c.ep = 2;
  const auto plan_of = [&](pf::models::Activation a, double clamp) {
    const WorkloadPlan base = testing::make_plan(c);
    ModelSpec m = base.model();
    m.activation = a;
    m.activation_clamp = clamp;
    return WorkloadPlan(m, base.parallelism(), base.training());
  };
  const std::vector<Op> swiglu = testing::ops_of(plan_of(pf::models::Activation::swiglu, 0), 0);
  const WorkloadPlan gpt_oss_plan = plan_of(pf::models::Activation::quick_geglu, 7.0);
  const std::vector<Op> plain = testing::ops_of(plan_of(pf::models::Activation::quick_geglu, 0), 0);
  const std::vector<Op> clamped = testing::ops_of(gpt_oss_plan, 0);
  const LocalDims& d = gpt_oss_plan.dims();
  const auto elems = static_cast<std::uint64_t>(d.expert_rows * d.expert_ffn_local);

  ASSERT_EQ(plain.size(), swiglu.size());
  for (std::size_t i = 0; i < plain.size(); ++i) {
    EXPECT_EQ(plain[i].kind, swiglu[i].kind);
    EXPECT_EQ(plain[i].bytes, swiglu[i].bytes);
    EXPECT_EQ(plain[i].launches, swiglu[i].launches + (plain[i].kind == OpKind::expert_act_fwd ? 1 : 0));
  }
  int acts = 0, clamps_fwd = 0, clamps_bwd = 0;
  for (std::size_t i = 0; i < clamped.size(); ++i) {
    const Op& o = clamped[i];
    if (o.kind == OpKind::expert_clamp_fwd) {
      ++clamps_fwd;
      EXPECT_EQ(o.bytes, 8 * 2 * elems);
      EXPECT_EQ(o.launches, 3);
      ASSERT_LT(i + 1, clamped.size());
      EXPECT_EQ(clamped[i + 1].kind, OpKind::expert_act_fwd);  // the activation reads the clamped halves
      EXPECT_EQ(clamped[i + 1].deps[0], o.id);
      EXPECT_EQ(clamped[i + 1].recompute, o.recompute);
    } else if (o.kind == OpKind::expert_clamp_bwd) {
      ++clamps_bwd;
      EXPECT_EQ(o.bytes, 6 * 2 * elems);
      EXPECT_EQ(o.launches, 2);
      ASSERT_GT(i, 0u);
      EXPECT_EQ(clamped[i - 1].kind, OpKind::expert_act_bwd);
      EXPECT_EQ(o.deps[0], clamped[i - 1].id);
    } else if (o.kind == OpKind::expert_act_fwd) {
      ++acts;
      EXPECT_EQ(o.launches, 2);
    }
  }
  EXPECT_EQ(clamps_fwd, acts);
  EXPECT_EQ(clamps_bwd, acts);  // no recomputation here: one backward per forward
  EXPECT_EQ(clamped.size(), plain.size() + 2 * static_cast<std::size_t>(acts));
  EXPECT_GT(acts, 0);
}

}  // namespace
}  // namespace pf::models::workload
