// torchtitan's op-level selective checkpointing (training.recompute:
// selective_op): the recomputation unit before each layer's backward holds
// the forward less what the policy keeps -- no attention, no reduce-scatter,
// no kept matmul -- with the fused GEMMs narrowed to the recomputed calls
// (wk of QKV, wo, w3 of gate/up; fc2 without a gate), and its dependencies
// still point backwards.
#include <gtest/gtest.h>

#include <map>

#include "models/workload/workload_plan.h"
#include "tests/unit/workload/test_models.h"

namespace pf::models::workload {
namespace {

using namespace pf::models::testing;

WorkloadPlan plan_for(const ModelSpec& m, int tp, bool overlap, bool eager) {
  ParallelismSpec par;
  par.tp = tp;
  par.sequence_parallel = tp > 1;
  TrainingSpec t = small_training(16, 128);
  t.recompute = Recompute::selective_op;
  t.tp_comm_overlap = overlap;
  t.fused_elementwise = !eager;
  return WorkloadPlan(m, par, t);
}

std::map<OpKind, std::vector<const OpTemplate*>> by_kind(const Unit& u) {
  std::map<OpKind, std::vector<const OpTemplate*>> out;
  for (const OpTemplate& t : u.ops) out[t.kind].push_back(&t);
  return out;
}

TEST(OpSelectiveRecompute, ReRunsEverySecondMatmulAndNoAttention) {
  for (bool gated : {true, false}) {
    for (int tp : {1, 2}) {
      for (bool overlap : {false, true}) {
        for (bool eager : {false, true}) {
          const ModelSpec m = gated ? tiny_llama(4) : tiny_gpt(4);
          const WorkloadPlan plan = plan_for(m, tp, overlap, eager);
          const Unit& u = plan.unit(UnitId::dense_recompute);
          const LocalDims& d = plan.dims();
          SCOPED_TRACE(std::string(gated ? "gated" : "gelu") + " tp " + std::to_string(tp) +
                       (overlap ? " overlap" : "") + (eager ? " eager" : ""));
          auto ops = by_kind(u);
          EXPECT_EQ(ops.count(OpKind::attention_fwd), 0u);
          EXPECT_EQ(ops.count(OpKind::tp_reduce_scatter), 0u);
          ASSERT_EQ(ops[OpKind::qkv_fwd].size(), 1u);
          EXPECT_EQ(ops[OpKind::qkv_fwd][0]->shape.gemm.N, d.k_dim_local);  // wk only
          ASSERT_EQ(ops[OpKind::attn_proj_fwd].size(), 1u);
          EXPECT_EQ(ops[OpKind::attn_proj_fwd][0]->shape.gemm.N, d.hidden);  // wo, whole
          if (gated) {
            ASSERT_EQ(ops[OpKind::mlp_fc1_fwd].size(), 1u);
            EXPECT_EQ(ops[OpKind::mlp_fc1_fwd][0]->shape.gemm.N, d.ffn_local);  // w3, half of gate/up
            EXPECT_EQ(ops.count(OpKind::mlp_fc2_fwd), 0u);
          } else {
            EXPECT_EQ(ops.count(OpKind::mlp_fc1_fwd), 0u);
            ASSERT_EQ(ops[OpKind::mlp_fc2_fwd].size(), 1u);
          }
          EXPECT_EQ(ops[OpKind::tp_all_gather].size(), tp > 1 ? 2u : 0u);  // gathers are recomputed
          EXPECT_FALSE(ops[OpKind::mlp_act_fwd].empty());                  // so is every elementwise op
          EXPECT_FALSE(ops[OpKind::residual_fwd].empty());
          for (std::size_t i = 0; i < u.ops.size(); ++i) {
            const OpTemplate& t = u.ops[i];
            EXPECT_TRUE(t.recompute);
            EXPECT_EQ(t.phase, Phase::bwd);
            if (op_class(t.kind) == OpClass::gemm) {
              const GemmShape& g = t.shape.gemm;
              EXPECT_DOUBLE_EQ(t.flops, 2.0 * g.batch * g.M * g.N * g.K);
            }
            for (const DepRef& dep : t.deps) {
              EXPECT_NE(dep.kind, DepKind::input);  // re-run from the checkpoint, not the incoming gradient
              if (dep.kind == DepKind::unit) {
                EXPECT_LT(dep.index, i);
              }
            }
          }
          EXPECT_FALSE(u.passes_input);
        }
      }
    }
  }
}

}  // namespace
}  // namespace pf::models::workload
