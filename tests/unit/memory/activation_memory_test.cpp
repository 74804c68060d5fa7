// Per-layer activation memory against Korthikanti et al. 2022, Table 2.
#include <gtest/gtest.h>

#include "models/memory/activation_memory.h"
#include "tests/unit/workload/test_models.h"

namespace pf::models::memory {
namespace {

using namespace pf::models::testing;

// GPT-3 175B sizes, micro-batch 2: s = 2048, b = 2, h = 12288, a = 96.
constexpr double s = 2048, b = 2, h = 12288, a = 96;

double layer_bytes(int tp, bool sp, Recompute rc, bool flash = false, int cp = 1) {
  ParallelismSpec par;
  par.tp = tp;
  par.cp = cp;
  par.sequence_parallel = sp;
  TrainingSpec t;
  t.micro_batch_size = 2;
  t.seq_length = 2048;
  ModelSpec m = gpt3_175b();
  return layer_activation_bytes(m, workload::local_dims(m, par, t), false, rc, ActivationOptions{flash, {}});
}

TEST(ActivationMemory, NoParallelism) {
  EXPECT_DOUBLE_EQ(layer_bytes(1, false, Recompute::none), s * b * h * (34 + 5 * a * s / h));
}

TEST(ActivationMemory, TensorParallel) {
  double t = 8;
  EXPECT_DOUBLE_EQ(layer_bytes(8, false, Recompute::none), s * b * h * (10 + 24 / t + 5 * a * s / (h * t)));
}

TEST(ActivationMemory, TensorAndSequenceParallel) {
  double t = 8;
  EXPECT_DOUBLE_EQ(layer_bytes(8, true, Recompute::none), s * b * h * (34 + 5 * a * s / h) / t);
}

TEST(ActivationMemory, TensorSequenceParallelSelectiveRecompute) {
  double t = 8;
  EXPECT_DOUBLE_EQ(layer_bytes(8, true, Recompute::selective), 34 * s * b * h / t);
}

// Two sequences of 256 tokens per micro-batch, and TP 2 with sequence
// parallelism: the small shapes the module tests below share.
TrainingSpec two_short_sequences() {
  TrainingSpec t;
  t.micro_batch_size = 2;
  t.seq_length = 256;
  return t;
}

ParallelismSpec tp2_sequence_parallel() {
  ParallelismSpec par;
  par.tp = 2;
  par.sequence_parallel = true;
  return par;
}

// Megatron-Core's --recompute-modules: each output-discarding module drops
// exactly the tensor it rebuilds in the backward; core_attn alone is the
// default selective recomputation.
double module_bytes(const ModelSpec& m, const ParallelismSpec& par, bool moe, std::uint8_t modules) {
  const TrainingSpec t = two_short_sequences();
  ActivationOptions o{true, {}};
  o.modules.modules = modules;
  return layer_activation_bytes(m, workload::local_dims(m, par, t), moe, Recompute::selective, o);
}

// The busiest EP rank (training.moe_load_imbalance) holds its experts'
// inputs and outputs for every extra token copy it receives; what comes back
// from the combine is the rank's own share.
TEST(ActivationMemory, MoeLoadImbalanceKeepsTheBusiestRanksExpertTensors) {
  const ModelSpec moe = tiny_moe(2);
  ParallelismSpec par;
  par.dp = 2;
  par.ep = 2;
  TrainingSpec t = two_short_sequences();
  const workload::LocalDims even = workload::local_dims(moe, par, t);
  t.moe_load_imbalance = 1.5;
  const workload::LocalDims busy = workload::local_dims(moe, par, t);
  ASSERT_GT(busy.expert_rows, even.expert_rows);
  const ActivationOptions o{true, {}};
  const double extra = static_cast<double>(busy.expert_rows - even.expert_rows);
  // fc1 input (16-bit), activation input (16-bit, fc1 wide), activation output (16-bit): per extra row.
  EXPECT_DOUBLE_EQ(layer_activation_bytes(moe, busy, true, Recompute::none, o) -
                       layer_activation_bytes(moe, even, true, Recompute::none, o),
                   extra * (2.0 * static_cast<double>(even.hidden) + 2.0 * static_cast<double>(even.expert_fc1_local) +
                            2.0 * static_cast<double>(even.expert_ffn_local)));
}

// A clamped gate (GPT-OSS) keeps fc1's output twice, as the clamps' input and
// as the fused activation's clamped input: one more 16-bit copy of the
// routed rows at fc1's width. quick_geglu without a clamp keeps what SwiGLU
// keeps; moe_act offloaded (in host memory) holds neither.
TEST(ActivationMemory, AClampedGateKeepsFc1sOutputTwice) {
  ModelSpec moe = tiny_moe(2);
  ParallelismSpec par;
  par.dp = 2;
  par.ep = 2;
  const TrainingSpec t = two_short_sequences();
  const workload::LocalDims y = workload::local_dims(moe, par, t);
  const ActivationOptions o{true, {}};
  const double swiglu = layer_activation_bytes(moe, y, true, Recompute::none, o);
  moe.activation = pf::models::Activation::quick_geglu;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(moe, y, true, Recompute::none, o), swiglu);
  moe.activation_clamp = 7.0;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(moe, y, true, Recompute::none, o) - swiglu,
                   2.0 * static_cast<double>(y.expert_rows) * static_cast<double>(y.expert_fc1_local));
  ActivationOptions offloaded = o;
  offloaded.offload.modules = pf::models::OffloadModules::moe_act;
  moe.activation_clamp = 0;
  const double plain_offloaded = layer_activation_bytes(moe, y, true, Recompute::none, offloaded);
  moe.activation_clamp = 7.0;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(moe, y, true, Recompute::none, offloaded), plain_offloaded);
}

// model.qk_norm: the query and key norms keep their 16-bit inputs, the
// projection's local Q and K columns; full recomputation keeps only the
// layer's input either way.
TEST(ActivationMemory, QkNormKeepsTheNormsInputs) {
  const ParallelismSpec par = tp2_sequence_parallel();
  const TrainingSpec t = two_short_sequences();
  ModelSpec m = tiny_llama(2);
  const workload::LocalDims x = workload::local_dims(m, par, t);
  const ActivationOptions o{true, {}};
  const double without = layer_activation_bytes(m, x, false, Recompute::none, o);
  const double full_without = layer_activation_bytes(m, x, false, Recompute::full, o);
  m.qk_norm = true;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, x, false, Recompute::none, o) - without,
                   2.0 * static_cast<double>(x.tokens) * static_cast<double>(x.q_dim_local + x.k_dim_local));
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, x, false, Recompute::full, o), full_without);
}

TEST(ActivationMemory, RecomputeModulesDropTheOutputsTheyRebuild) {
  using R = RecomputeModules;
  const ParallelismSpec par = tp2_sequence_parallel();
  const TrainingSpec t = two_short_sequences();
  const ModelSpec dense = tiny_llama(2);
  const workload::LocalDims x = workload::local_dims(dense, par, t);
  const double norm_out = 2.0 * static_cast<double>(x.tokens_sp * x.hidden);
  const double stats = 4.0 * static_cast<double>(x.heads_local * x.tokens);  // flash's row statistics
  EXPECT_DOUBLE_EQ(module_bytes(dense, par, false, R::core_attn) - module_bytes(dense, par, false, R::core_attn | R::layernorm),
                   2 * norm_out);  // the input and the pre-MLP norm outputs
  EXPECT_DOUBLE_EQ(module_bytes(dense, par, false, R::layernorm) - module_bytes(dense, par, false, R::core_attn | R::layernorm),
                   stats);
  // moe_act is a no-op on a dense layer.
  EXPECT_DOUBLE_EQ(module_bytes(dense, par, false, R::core_attn | R::moe_act), module_bytes(dense, par, false, R::core_attn));

  const ModelSpec moe = tiny_moe(2);
  const workload::LocalDims y = workload::local_dims(moe, par, t);
  EXPECT_DOUBLE_EQ(module_bytes(moe, par, true, R::core_attn) - module_bytes(moe, par, true, R::core_attn | R::moe_act),
                   2.0 * static_cast<double>(y.expert_rows * y.expert_ffn_local));

  // Submodule checkpoints keep only their input: the dense MLP its norm
  // output (none more with layernorm), the MoE layer likewise.
  const double dense_none = layer_activation_bytes(dense, x, false, Recompute::none, ActivationOptions{true, {}});
  const double mlp_acts = 2.0 * static_cast<double>(x.tokens * (x.fc1_local + x.ffn_local));
  EXPECT_DOUBLE_EQ(module_bytes(dense, par, false, R::core_attn) - module_bytes(dense, par, false, R::core_attn | R::mlp),
                   mlp_acts);
  EXPECT_DOUBLE_EQ(dense_none - module_bytes(dense, par, false, R::core_attn | R::mlp), mlp_acts + stats);
  auto D = [](std::int64_t v) { return static_cast<double>(v); };
  const double shared_acts = 2 * D(y.tokens) * (D(y.shared_fc1_local) + D(y.shared_ffn_local));
  ASSERT_GT(shared_acts, 0);
  const double moe_inside = 4 * D(y.tokens_sp) * D(y.experts) + 2 * D(y.expert_rows) * D(y.hidden) +
                            2 * D(y.expert_rows) * (D(y.expert_fc1_local) + D(y.expert_ffn_local)) + shared_acts;
  EXPECT_DOUBLE_EQ(module_bytes(moe, par, true, R::core_attn) - module_bytes(moe, par, true, R::core_attn | R::moe),
                   moe_inside);
  EXPECT_DOUBLE_EQ(
      module_bytes(moe, par, true, R::core_attn) - module_bytes(moe, par, true, R::core_attn | R::shared_experts),
      shared_acts);
  // moe and layernorm together: the MoE side keeps only the norm input.
  EXPECT_DOUBLE_EQ(module_bytes(moe, par, true, R::core_attn | R::moe) -
                       module_bytes(moe, par, true, R::core_attn | R::moe | R::layernorm),
                   2 * norm_out);

  ParallelismSpec one;
  const ModelSpec mla = tiny_deepseek(2);
  const workload::LocalDims z = workload::local_dims(mla, one, t);
  EXPECT_DOUBLE_EQ(module_bytes(mla, one, true, R::core_attn) - module_bytes(mla, one, true, R::core_attn | R::mla_up_proj),
                   2.0 * static_cast<double>(z.tokens * (z.q_dim_local + z.k_dim_local + z.v_dim_local)));
}

// FP8 training: Transformer Engine's linear layers keep the FP8 copy of their
// input for the weight gradient, one byte per element; everything else a
// layer keeps (attention's Q, K, V, the activation function's input, the
// norms' and the router's inputs) stays 16-bit.
TEST(ActivationMemory, Fp8KeepsLinearInputsAtOneByte) {
  auto D = [](std::int64_t v) { return static_cast<double>(v); };
  const ParallelismSpec par = tp2_sequence_parallel();
  const TrainingSpec t = two_short_sequences();
  ActivationOptions bf16{true, {}}, fp8{true, {}, true};
  bf16.modules.modules = fp8.modules.modules = RecomputeModules::core_attn;

  const ModelSpec dense = tiny_llama(2);
  const workload::LocalDims x = workload::local_dims(dense, par, t);
  // Two norm outputs (QKV and fc1 inputs), the projection's and fc2's inputs.
  const double dense_linear_inputs =
      2 * D(x.tokens_sp) * D(x.hidden) + D(x.tokens) * D(x.attn_out_local) + D(x.tokens) * D(x.ffn_local);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(dense, x, false, Recompute::selective, bf16) -
                       layer_activation_bytes(dense, x, false, Recompute::selective, fp8),
                   dense_linear_inputs);

  // MoE: the router's input stays 16-bit; the experts' and shared experts'
  // linear inputs halve.
  const ModelSpec moe = tiny_moe(2);
  const workload::LocalDims y = workload::local_dims(moe, par, t);
  ASSERT_GT(y.shared_ffn_local, 0);
  const double moe_linear_inputs = D(y.tokens_sp) * D(y.hidden) + D(y.tokens) * D(y.attn_out_local) +
                                   D(y.expert_rows) * (D(y.hidden) + D(y.expert_ffn_local)) +
                                   D(y.tokens) * D(y.shared_ffn_local);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(moe, y, true, Recompute::selective, bf16) -
                       layer_activation_bytes(moe, y, true, Recompute::selective, fp8),
                   moe_linear_inputs);

  // MLA: the latents' normed copies feed the up-projections.
  ParallelismSpec one;
  const ModelSpec mla = tiny_deepseek(2);
  const workload::LocalDims z = workload::local_dims(mla, one, t);
  const double mla_linear_inputs = D(z.tokens) * D(z.hidden) + D(z.tokens) * D(z.attn_out_local) +
                                   D(z.tokens) * (D(z.q_lora) + D(z.kv_lora)) +
                                   D(z.expert_rows) * (D(z.hidden) + D(z.expert_ffn_local)) +
                                   D(z.tokens) * D(z.shared_ffn_local);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(mla, z, true, Recompute::selective, bf16) -
                       layer_activation_bytes(mla, z, true, Recompute::selective, fp8),
                   mla_linear_inputs);

  // Full recomputation keeps only the 16-bit layer input either way.
  EXPECT_DOUBLE_EQ(layer_activation_bytes(dense, x, false, Recompute::full, fp8),
                   layer_activation_bytes(dense, x, false, Recompute::full, bf16));
}

// training.offload_modules: the routed experts' fc1 input (the dispatched
// tokens, at the linear layer's precision) and the activation's input (fc1's
// output, 16-bit) leave the GPU; nothing else moves.
TEST(ActivationMemory, OffloadedExpertInputsLeaveTheGpu) {
  auto D = [](std::int64_t v) { return static_cast<double>(v); };
  ParallelismSpec par;
  const TrainingSpec t = two_short_sequences();
  const ModelSpec moe = tiny_moe(2);
  const workload::LocalDims y = workload::local_dims(moe, par, t);
  for (bool fp8 : {false, true}) {
    ActivationOptions kept{true, {}, fp8}, fc1{true, {}, fp8}, act{true, {}, fp8};
    fc1.offload.modules = OffloadModules::expert_fc1;
    act.offload.modules = OffloadModules::moe_act;
    const double all = layer_activation_bytes(moe, y, true, Recompute::none, kept);
    EXPECT_DOUBLE_EQ(all - layer_activation_bytes(moe, y, true, Recompute::none, fc1),
                     (fp8 ? 1.0 : 2.0) * D(y.expert_rows) * D(y.hidden));
    EXPECT_DOUBLE_EQ(all - layer_activation_bytes(moe, y, true, Recompute::none, act),
                     2.0 * D(y.expert_rows) * D(y.expert_fc1_local));
    // A dense layer has neither.
    EXPECT_DOUBLE_EQ(layer_activation_bytes(moe, y, false, Recompute::none, fc1),
                     layer_activation_bytes(moe, y, false, Recompute::none, kept));
  }
}

TEST(ActivationMemory, FullRecomputeKeepsTheLayerInput) {
  EXPECT_DOUBLE_EQ(layer_bytes(1, false, Recompute::full), 2 * s * b * h);
  EXPECT_DOUBLE_EQ(layer_bytes(8, true, Recompute::full), 2 * s * b * h / 8);
}

// torchtitan's op-level selective checkpointing keeps the block input, the
// outputs of wq and wv (GPT-3: q = kv = h), the attention output and its fp32
// log-sum-exp, fc1's output (4h, the first MLP matmul of a two-matrix MLP),
// and with sequence parallelism the two reduce-scatters' outputs:
//   no TP:  s b (2h + 2h + 2h + 2h + 4 a + 8h)            = s b (16h + 4a)
//   TP 8 + SP: s b (2h/t + 6h/t + 4a/t + 8h/t + 4h/t)     = s b (20h + 4a) / t
// Between Megatron's selective (34 s b h / t) and full (2 s b h / t) there.
TEST(ActivationMemory, OpSelectiveKeepsTheSavedMatmulOutputs) {
  const double t = 8;
  EXPECT_DOUBLE_EQ(layer_bytes(1, false, Recompute::selective_op), s * b * (16 * h + 4 * a));
  EXPECT_DOUBLE_EQ(layer_bytes(8, true, Recompute::selective_op), s * b * (20 * h + 4 * a) / t);
  EXPECT_LT(layer_bytes(8, true, Recompute::selective_op), layer_bytes(8, true, Recompute::selective));
  EXPECT_GT(layer_bytes(8, true, Recompute::selective_op), layer_bytes(8, true, Recompute::full));
}

// Context parallelism holds s / cp of every token tensor and s / cp rows of
// the score matrix (each local query still attends to all s keys).
TEST(ActivationMemory, ContextParallelSplitsTheSequence) {
  EXPECT_DOUBLE_EQ(layer_bytes(8, true, Recompute::none, false, 4), s * b * h * (34 + 5 * a * s / h) / (8 * 4));
}

// A fused attention kernel keeps fp32 softmax statistics (a s b / t x 4 bytes)
// instead of the score matrix.
TEST(ActivationMemory, FlashAttentionDropsTheScoreMatrix) {
  double t = 8;
  EXPECT_DOUBLE_EQ(layer_bytes(8, true, Recompute::none, true), 34 * s * b * h / t + 4 * a / t * s * b);
}

// SwiGLU stores gate and up projections (2 d_ff) where GeLU stores one, and
// grouped-query attention stores fewer keys and values; no dropout masks.
TEST(ActivationMemory, GatedMlpAndGroupedQueryAttention) {
  ModelSpec m = llama3_405b();
  TrainingSpec t;
  t.micro_batch_size = 1;
  t.seq_length = 8192;
  workload::LocalDims d = workload::local_dims(m, ParallelismSpec{}, t);
  double sb = 8192, hh = 16384, kv = 8 * 128, f = 53248;
  double expect = sb * (2 * hh + 2 * hh + 2 * (hh + kv) + 2 * kv + 2 * hh)  // attention block
                  + sb * (2 * hh + 2 * hh + 2 * 2 * f + 2 * f);             // MLP block
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, d, false, Recompute::selective, {}), expect);
}

}  // namespace
}  // namespace pf::models::memory
