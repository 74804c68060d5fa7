// Parameter counts against published totals, and per-GPU shares that add up.
#include <gtest/gtest.h>

#include "models/workload/param_count.h"
#include "models/workload/stage_params.h"
#include "models/workload/workload_plan.h"
#include "tests/unit/workload/test_models.h"

namespace pf::models::workload {
namespace {

using namespace pf::models::testing;

TEST(ParamCount, Gpt3_175B) {
  ParameterCount c = count_parameters(gpt3_175b(), 2048);
  // 174.6 B (Narayanan et al. 2021, Table 1).
  EXPECT_NEAR(static_cast<double>(c.total), 174.6e9, 0.01 * 174.6e9);
  EXPECT_EQ(c.total, c.active);
  // 12 h^2 + 13 h per layer, V h + s h embeddings, final LayerNorm 2h.
  std::int64_t h = 12288;
  EXPECT_EQ(c.total, 96 * (12 * h * h + 13 * h) + 51200 * h + 2048 * h + 2 * h);
}

TEST(ParamCount, Llama3_405B) {
  ParameterCount c = count_parameters(llama3_405b(), 8192);
  EXPECT_NEAR(static_cast<double>(c.total), 405e9, 0.01 * 405e9);
}

TEST(ParamCount, Mixtral8x7BTotalAndActive) {
  ParameterCount c = count_parameters(mixtral_8x7b(), 4096);
  // 46.7 B total, 12.9 B active per token (Mistral AI's Mixtral announcement; Jiang et al. 2024).
  EXPECT_NEAR(static_cast<double>(c.total), 46.7e9, 0.01 * 46.7e9);
  EXPECT_NEAR(static_cast<double>(c.active), 12.9e9, 0.01 * 12.9e9);
}

TEST(ParamCount, DeepSeekV3WithLatentAttentionAndMtp) {
  ParameterCount c = count_parameters(deepseek_v3(), 4096);
  // 671 B total, 37 B activated per token (DeepSeek-V3 technical report,
  // abstract); the activated figure is rounded to the billion, hence 2 %.
  EXPECT_NEAR(static_cast<double>(c.total), 671e9, 0.01 * 671e9);
  EXPECT_NEAR(static_cast<double>(c.active), 37e9, 0.02 * 37e9);
  // The MTP module (about 11.5 B without its shared embedding and head) is
  // trained but outside the 671 B.
  EXPECT_NEAR(static_cast<double>(c.mtp), 11.5e9, 0.02 * 11.5e9);
}

ParallelismSpec split(int tp, int pp, int dp, int ep = 1) {
  ParallelismSpec p;
  p.tp = tp;
  p.pp = pp;
  p.dp = dp;
  p.ep = ep;
  p.sequence_parallel = tp > 1;
  return p;
}

// Without tensor parallelism the stages hold the model exactly once, plus the
// LM head copy a tied model keeps on its last stage.
TEST(ParamCount, PipelineStagesAddUpToTheModel) {
  TrainingSpec t = small_training();
  for (const ModelSpec& m : {tiny_gpt(6), tiny_moe(6), llama3_405b(), tiny_deepseek(6)}) {
    WorkloadPlan plan(m, split(1, 3, 1), t);
    std::int64_t sum = 0;
    for (int s = 0; s < 3; ++s) sum += stage_params(plan, s).total();
    // The last stage keeps a copy of the embedding for a tied head or for MTP.
    std::int64_t copy = (m.tied_embeddings || m.mtp_layers > 0) ? m.vocab_size * m.hidden_size : 0;
    ParameterCount c = count_parameters(m, t.seq_length);
    EXPECT_EQ(sum, c.total + c.mtp + copy) << m.name;
  }
}

// Tensor and expert parallelism divide the weights; norms, row-parallel biases
// and the router stay whole on every rank.
TEST(ParamCount, TensorAndExpertShards) {
  ModelSpec m = tiny_moe(4);
  TrainingSpec t = small_training();
  WorkloadPlan whole(m, split(1, 1, 4), t);
  WorkloadPlan sharded(m, split(2, 1, 4, 2), t);
  LayerParams a = layer_params(m, whole.dims(), true);
  LayerParams b = layer_params(m, sharded.dims(), true);
  EXPECT_EQ(b.expert(), a.expert() / 4);  // experts over ep = 2, their FFN over tp = 2
  EXPECT_EQ(b.qkv, a.qkv / 2);
  EXPECT_EQ(b.router, a.router);
  EXPECT_EQ(b.norm, a.norm);
}

}  // namespace
}  // namespace pf::models::workload
