// Helpers for op-stream tests: build small plans, materialise every GPU's ops
// (fine for test-sized plans), and dry-run them to prove they can complete.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "models/workload/gpu_program.h"
#include "tests/unit/workload/test_models.h"

namespace pf::models::workload::testing {

struct Config {
  int tp = 1, cp = 1, dp = 1, pp = 1, ep = 1, v = 1, zero = 0;
  int expert_tp = 0;  // 0 = tp
  bool sp = false;
  Recompute recompute = Recompute::none;
  std::uint8_t recompute_modules = pf::models::RecomputeModules::core_attn;  // with Recompute::selective
  int recompute_num_layers = 0;  // with Recompute::full
  pf::models::RecomputeMethod recompute_method = pf::models::RecomputeMethod::block;
  bool overlap_grad = true, overlap_param = true;
  bool moe = false;
  bool deepseek = false;  // MLA + experts + multi-token prediction
  int layers = 4;
  std::int64_t global_batch = 16;
  pf::models::GradReduceDtype grad_reduce = pf::models::GradReduceDtype::automatic;
  pf::models::GradReduceCollective grad_collective = pf::models::GradReduceCollective::automatic;
  bool fp8 = false;  // training.dtype fp8 with `recipe`
  pf::models::Fp8Recipe recipe = pf::models::Fp8Recipe::delayed;
  double moe_imbalance = 1.0;  // training.moe_load_imbalance
  bool a2a_overlap = false;    // training.overlap_moe_expert_parallel_comm (and delay_wgrad_compute)

  std::string name() const {
    return "tp" + std::to_string(tp) + " cp" + std::to_string(cp) + " dp" + std::to_string(dp) + " pp" +
           std::to_string(pp) + " ep" + std::to_string(ep) + (expert_tp ? " etp" + std::to_string(expert_tp) : "") + " v" + std::to_string(v) + " zero" +
           std::to_string(zero) + (sp ? " sp" : "") + (moe ? " moe" : "") + (deepseek ? " deepseek" : "") + " rc" +
           std::to_string(static_cast<int>(recompute)) + (a2a_overlap ? " a2a-overlap" : "");
  }
};

inline WorkloadPlan make_plan(const Config& c) {
  ParallelismSpec p;
  p.tp = c.tp;
  p.cp = c.cp;
  p.dp = c.dp;
  p.pp = c.pp;
  p.ep = c.ep;
  p.expert_tp = c.expert_tp;
  p.virtual_stages = c.v;
  p.pipeline_schedule = c.v > 1 ? pf::models::PipelineSchedule::interleaved : pf::models::PipelineSchedule::one_f_one_b;
  p.zero_stage = c.zero;
  p.sequence_parallel = c.sp;
  TrainingSpec t = pf::models::testing::small_training(c.global_batch, 128);
  t.recompute = c.recompute;
  t.recompute_modules.modules = c.recompute_modules;
  t.recompute_num_layers = c.recompute_num_layers;
  t.recompute_method = c.recompute_method;
  t.overlap_grad_reduce = c.overlap_grad;
  t.overlap_param_gather = c.overlap_param;
  t.grad_reduce_dtype = c.grad_reduce;
  t.grad_reduce_collective = c.grad_collective;
  t.moe_load_imbalance = c.moe_imbalance;
  t.overlap_moe_expert_parallel_comm = t.delay_wgrad_compute = c.a2a_overlap;
  if (c.fp8) {
    t.dtype = pf::models::Dtype::fp8;
    t.fp8_recipe = c.recipe;
  }
  ModelSpec m = c.moe ? pf::models::testing::tiny_moe(c.layers) : pf::models::testing::tiny_gpt(c.layers);
  if (c.deepseek) m = pf::models::testing::tiny_deepseek(c.layers);
  return WorkloadPlan(m, p, t);
}

// make_plan(c) with its training spec changed by `tweak` (a key the Config
// does not carry).
template <typename Tweak>
WorkloadPlan make_plan_with(const Config& c, Tweak tweak) {
  const WorkloadPlan base = make_plan(c);
  TrainingSpec t = base.training();
  tweak(t);
  return WorkloadPlan(base.model(), base.parallelism(), t);
}

// The data-parallel gradient reductions (ZeRO 0 all-reduces, ZeRO >= 1 reduce-scatters).
inline bool is_grad_reduce(const Op& o) {
  return o.kind == OpKind::dp_grad_all_reduce || o.kind == OpKind::dp_grad_reduce_scatter;
}

inline std::vector<Op> ops_of(const WorkloadPlan& plan, int gpu) {
  std::vector<Op> out;
  GpuProgram p(plan, gpu);
  Op op;
  while (p.next(op)) out.push_back(op);
  return out;
}

inline std::vector<std::vector<Op>> all_ops(const WorkloadPlan& plan) {
  std::vector<std::vector<Op>> out;
  for (int g = 0; g < plan.world_size(); ++g) out.push_back(ops_of(plan, g));
  return out;
}

// Executes the programs with the op.h contract and no timing: an op completes
// once its dependencies have, compute ops in issue order, a collective once
// every member has reached it and the group's earlier collectives are done, a
// recv once its send has started. Returns the number of ops left unfinished
// (0: the programs cannot deadlock).
inline std::size_t dry_run(const WorkloadPlan& plan, const std::vector<std::vector<Op>>& ops) {
  using Key = std::pair<std::uint32_t, std::uint32_t>;  // raw group, seq
  std::size_t gpus = ops.size();
  std::vector<std::vector<char>> done(gpus), arrived(gpus);
  std::vector<std::size_t> next_compute(gpus, 0);
  std::map<Key, std::vector<std::pair<std::size_t, std::size_t>>> members_at;
  std::map<std::uint32_t, std::uint32_t> next_seq;
  std::map<std::tuple<int, int, std::uint32_t>, bool> sent;
  std::size_t left = 0;
  for (std::size_t g = 0; g < gpus; ++g) {
    done[g].assign(ops[g].size(), 0);
    arrived[g].assign(ops[g].size(), 0);
    left += ops[g].size();
  }
  for (bool progress = true; progress;) {
    progress = false;
    for (std::size_t g = 0; g < gpus; ++g) {
      while (next_compute[g] < ops[g].size() &&
             (ops[g][next_compute[g]].stream != Stream::compute || done[g][next_compute[g]])) {
        ++next_compute[g];
      }
      for (std::size_t i = 0; i < ops[g].size(); ++i) {
        const Op& op = ops[g][i];
        if (done[g][i] || arrived[g][i]) continue;
        bool deps = true;
        for (int d = 0; d < op.dep_count; ++d) deps = deps && done[g][op.deps[static_cast<std::size_t>(d)]];
        if (!deps) continue;
        if (op.stream == Stream::compute && i != next_compute[g]) continue;
        if (op.kind == OpKind::pp_recv && !sent[{op.peer, static_cast<int>(g), op.seq}]) continue;
        if (op.kind == OpKind::pp_send) sent[{static_cast<int>(g), op.peer, op.seq}] = true;
        progress = true;
        if (op.stream == Stream::comm) {
          arrived[g][i] = 1;
          members_at[{op.group.raw(), op.seq}].emplace_back(g, i);
        } else {
          done[g][i] = 1;
          --left;
        }
      }
    }
    // Complete collectives whose members have all arrived, in seq order per group.
    for (auto it = members_at.begin(); it != members_at.end();) {
      auto [group, seq] = it->first;
      int size = plan.layout().group_size(GroupId::from_raw(group).kind());
      if (static_cast<int>(it->second.size()) == size && next_seq[group] == seq) {
        for (auto [mg, mi] : it->second) {
          done[mg][mi] = 1;
          --left;
        }
        ++next_seq[group];
        it = members_at.erase(it);
        progress = true;
      } else {
        ++it;
      }
    }
  }
  return left;
}

}  // namespace pf::models::workload::testing
