// The op-stream contract of op.h, checked over every GPU of small plans: ids
// and dependencies, collectives matched by (group, seq), p2p matched by tag,
// no deadlock, and the same program whoever generates it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <tuple>

#include "tests/unit/workload/program_fixture.h"

namespace pf::models::workload {
namespace {

using testing::Config;

std::vector<Config> configs() {
  std::vector<Config> out;
  out.push_back({});
  Config c;
  c.tp = 2, c.pp = 2, c.dp = 2;
  out.push_back(c);
  c.sp = true, c.zero = 1;
  out.push_back(c);
  c.pp = 2, c.v = 2, c.zero = 2, c.recompute = Recompute::selective;
  out.push_back(c);
  Config z3;
  z3.tp = 2, z3.dp = 2, z3.pp = 2, z3.zero = 3, z3.recompute = Recompute::full;
  out.push_back(z3);
  z3.overlap_param = false, z3.overlap_grad = false;
  out.push_back(z3);
  Config uniform = z3;  // groups of 3 of 4 layers re-run together (a short last group), re-gathering under ZeRO-3
  uniform.overlap_param = true, uniform.pp = 1, uniform.dp = 4, uniform.recompute_num_layers = 3;
  uniform.recompute_method = RecomputeMethod::uniform;
  out.push_back(uniform);
  Config sac = z3;  // torchtitan's op-level selective checkpointing under ZeRO-3 (FSDP)
  sac.sp = true, sac.overlap_param = true, sac.overlap_grad = true, sac.recompute = Recompute::selective_op;
  out.push_back(sac);
  Config cp;
  cp.cp = 2, cp.tp = 2, cp.sp = true, cp.pp = 2, cp.dp = 1, cp.zero = 1, cp.overlap_param = false;
  out.push_back(cp);
  Config moe;
  moe.moe = true, moe.tp = 2, moe.sp = true, moe.dp = 4, moe.ep = 2, moe.pp = 2, moe.zero = 1;
  out.push_back(moe);
  moe.ep = 4, moe.expert_tp = 1;  // MoE parallel folding: EP 4 over tp 2 x dp 2 of the 8 stage ranks
  out.push_back(moe);
  moe.expert_tp = 0;
  moe.ep = 4, moe.tp = 1, moe.sp = false, moe.pp = 1, moe.zero = 3, moe.recompute = Recompute::full;
  out.push_back(moe);
  Config ds;
  ds.deepseek = true, ds.tp = 2, ds.sp = true, ds.pp = 2, ds.dp = 2, ds.ep = 2, ds.zero = 1;
  out.push_back(ds);
  ds.tp = 1, ds.sp = false, ds.dp = 4, ds.zero = 3, ds.v = 2, ds.recompute = Recompute::full;
  out.push_back(ds);
  Config combined;  // combined 1F1B: no pipeline, then interleaved with shared experts, MLA and MTP
  combined.moe = true, combined.dp = 4, combined.ep = 4, combined.zero = 1, combined.a2a_overlap = true;
  out.push_back(combined);
  Config combined_ds = ds;
  combined_ds.tp = 2, combined_ds.sp = true, combined_ds.dp = 2, combined_ds.zero = 1, combined_ds.v = 2;
  combined_ds.recompute = Recompute::none, combined_ds.a2a_overlap = true;
  out.push_back(combined_ds);
  Config combined_uneven;  // chunks of 1 and 2 layers: the passes' layer counts differ
  combined_uneven.moe = true, combined_uneven.layers = 6, combined_uneven.pp = 2, combined_uneven.v = 2;
  combined_uneven.dp = 2, combined_uneven.ep = 2, combined_uneven.a2a_overlap = true;
  out.push_back(combined_uneven);
  Config uneven;
  uneven.layers = 6, uneven.pp = 4, uneven.dp = 2, uneven.overlap_grad = false;
  out.push_back(uneven);
  return out;
}

TEST(ProgramContract, IdsCountUpAndDependenciesPointBackwards) {
  for (const Config& c : configs()) {
    WorkloadPlan plan = testing::make_plan(c);
    for (int g = 0; g < plan.world_size(); ++g) {
      std::vector<Op> ops = testing::ops_of(plan, g);
      for (std::size_t i = 0; i < ops.size(); ++i) {
        ASSERT_EQ(ops[i].id, i) << c.name();
        EXPECT_EQ(ops[i].stream, stream_of(ops[i].kind));
        for (int d = 0; d < ops[i].dep_count; ++d) ASSERT_LT(ops[i].deps[static_cast<std::size_t>(d)], ops[i].id);
        bool comm = ops[i].stream != Stream::compute;
        EXPECT_EQ(comm, !ops[i].group.is_none()) << kind_name(ops[i].kind);
      }
      // One optimizer step; only ZeRO 1/2 parameter all-gathers may follow it.
      auto opt = std::find_if(ops.begin(), ops.end(), [](const Op& o) { return o.kind == OpKind::optimizer_step; });
      ASSERT_NE(opt, ops.end()) << c.name();
      for (auto it = opt + 1; it != ops.end(); ++it) EXPECT_EQ(kind_name(it->kind), "dp_param_all_gather");
    }
  }
}

// The executor prices an op once per template (op.h's template_index): every
// op carrying an index must have that template's kind, phase, FLOPs, bytes and
// shape on every GPU and in every micro-batch; compute ops outside templates
// (the optimizer step) carry none; indices stay below template_count().
TEST(ProgramContract, OpsOfOneTemplateArePricedAlike) {
  for (const Config& c : configs()) {
    WorkloadPlan plan = testing::make_plan(c);
    std::map<std::uint32_t, Op> first;
    std::size_t templated = 0;
    for (int g = 0; g < plan.world_size(); ++g) {
      for (const Op& op : testing::ops_of(plan, g)) {
        if (op.kind == OpKind::optimizer_step) {
          EXPECT_EQ(op.template_index, kNoOp);
        }
        if (op.template_index == kNoOp) continue;
        ++templated;
        ASSERT_LT(op.template_index, plan.template_count()) << c.name();
        const auto [it, fresh] = first.emplace(op.template_index, op);
        if (fresh) continue;
        const Op& t = it->second;
        ASSERT_EQ(op.kind, t.kind) << c.name() << " template " << op.template_index;
        EXPECT_EQ(op.phase, t.phase);
        EXPECT_EQ(op.flops, t.flops);
        EXPECT_EQ(op.bytes, t.bytes);
        EXPECT_TRUE(op.shape == t.shape) << c.name() << " " << kind_name(op.kind);
      }
    }
    // Every layer's and micro-batch's ops share a handful of templates.
    EXPECT_GT(templated, 4 * first.size()) << c.name();
  }
}

// progress() climbs from 0 to 1 as the program is issued, never backwards,
// and reaches 1 only when the last op has been issued (the progress line's ETA).
TEST(ProgramContract, ProgressClimbsFromZeroToOne) {
  for (const Config& c : configs()) {
    WorkloadPlan plan = testing::make_plan(c);
    for (int g = 0; g < plan.world_size(); ++g) {
      GpuProgram p(plan, g);
      EXPECT_EQ(p.progress(), 0.0) << c.name();
      double last = 0;
      int below_half = 0, ops = 0;
      for (Op op; p.next(op);) {
        ASSERT_GE(p.progress(), last) << c.name() << " gpu " << g << " op " << op.id;
        last = p.progress();
        ++ops;
        if (last < 0.5) ++below_half;
        if (last >= 1.0) ADD_FAILURE() << c.name() << ": 1 before the end";
      }
      EXPECT_EQ(p.progress(), 1.0) << c.name();
      // Not all at one end: a real share of the ops is issued in each half.
      EXPECT_GT(below_half, ops / 10) << c.name();
      EXPECT_LT(below_half, ops - ops / 10) << c.name();
    }
  }
}

// Every member of a group issues the same collectives (kind, size) in the same
// order, numbered 0, 1, 2, ... per group.
TEST(ProgramContract, CollectivesMatchAcrossGroupMembers) {
  for (const Config& c : configs()) {
    WorkloadPlan plan = testing::make_plan(c);
    std::map<std::uint32_t, std::map<int, std::vector<std::tuple<std::uint32_t, OpKind, std::uint64_t>>>> seen;
    for (int g = 0; g < plan.world_size(); ++g) {
      for (const Op& op : testing::ops_of(plan, g)) {
        if (op.stream == Stream::comm) seen[op.group.raw()][g].emplace_back(op.seq, op.kind, op.bytes);
      }
    }
    for (auto& [raw, by_gpu] : seen) {
      GroupId group = GroupId::from_raw(raw);
      std::vector<int> members = plan.layout().members(group);
      ASSERT_EQ(by_gpu.size(), members.size()) << RankLayout::group_name(group) << " " << c.name();
      const auto& first = by_gpu.begin()->second;
      for (std::size_t i = 0; i < first.size(); ++i) EXPECT_EQ(std::get<0>(first[i]), i);
      for (int m : members) {
        ASSERT_TRUE(by_gpu.count(m)) << m;
        EXPECT_EQ(by_gpu[m], first) << RankLayout::group_name(group) << " member " << m << " " << c.name();
      }
    }
  }
}

TEST(ProgramContract, EverySendHasOneMatchingRecv) {
  for (const Config& c : configs()) {
    WorkloadPlan plan = testing::make_plan(c);
    std::map<std::tuple<int, int, std::uint32_t>, int> balance;
    std::size_t messages = 0;
    for (int g = 0; g < plan.world_size(); ++g) {
      for (const Op& op : testing::ops_of(plan, g)) {
        if (op.kind == OpKind::pp_send) ++balance[{g, op.peer, op.seq}], ++messages;
        if (op.kind == OpKind::pp_recv) --balance[{op.peer, g, op.seq}];
      }
    }
    for (auto& [key, n] : balance) EXPECT_EQ(n, 0) << c.name();
    // Each micro-batch crosses pp*v - 1 stage boundaries each way, on every tp x cp x dp pipeline.
    std::size_t pipelines = static_cast<std::size_t>(plan.world_size() / c.pp);
    EXPECT_EQ(messages, pipelines * 2 * static_cast<std::size_t>(plan.microbatches() * (plan.vstages() - 1)));
  }
}

TEST(ProgramContract, ProgramsRunToCompletionWithoutDeadlock) {
  for (const Config& c : configs()) {
    WorkloadPlan plan = testing::make_plan(c);
    EXPECT_EQ(testing::dry_run(plan, testing::all_ops(plan)), 0u) << c.name();
  }
}

bool same(const Op& a, const Op& b) {
  return a.id == b.id && a.kind == b.kind && a.phase == b.phase && a.stream == b.stream &&
         a.recompute == b.recompute && a.layer == b.layer && a.microbatch == b.microbatch && a.chunk == b.chunk &&
         a.flops == b.flops && a.bytes == b.bytes && a.group == b.group && a.seq == b.seq && a.peer == b.peer &&
         a.shape == b.shape && a.dep_count == b.dep_count && a.deps == b.deps;
}

// A pure function of the configuration: separately built plans, GPUs visited
// in opposite orders and interleaved, give identical programs.
TEST(ProgramContract, SameProgramWhoeverGeneratesIt) {
  for (const Config& c : configs()) {
    WorkloadPlan a = testing::make_plan(c);
    WorkloadPlan b = testing::make_plan(c);
    std::vector<std::vector<Op>> forward = testing::all_ops(a);
    std::vector<GpuProgram> programs;
    for (int g = b.world_size() - 1; g >= 0; --g) programs.emplace_back(b, g);
    std::vector<std::vector<Op>> backward(programs.size());
    for (bool any = true; any;) {
      any = false;
      for (GpuProgram& p : programs) {
        Op op;
        if (p.next(op)) {
          backward[static_cast<std::size_t>(p.gpu())].push_back(op);
          any = true;
        }
      }
    }
    for (std::size_t g = 0; g < forward.size(); ++g) {
      ASSERT_EQ(forward[g].size(), backward[g].size()) << c.name();
      for (std::size_t i = 0; i < forward[g].size(); ++i) ASSERT_TRUE(same(forward[g][i], backward[g][i])) << c.name();
    }
  }
}

}  // namespace
}  // namespace pf::models::workload
