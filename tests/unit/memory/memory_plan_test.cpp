// Memory per stage: ZeRO sharding ratios, activations held under the pipeline
// schedule, the OOM verdict and the validate summary.
#include <gtest/gtest.h>

#include "models/memory/memory_plan.h"
#include "models/memory/plan_summary.h"
#include "models/memory/stage_activations.h"
#include "models/memory/state_memory.h"
#include "models/workload/param_count.h"
#include "tests/unit/workload/test_models.h"

namespace pf::models::memory {
namespace {

using namespace pf::models::testing;
using workload::WorkloadPlan;

WorkloadPlan plan(const ModelSpec& m, int tp, int pp, int dp, int zero, int v = 1, std::int64_t gb = 64,
                  GradReduceDtype grads = GradReduceDtype::bf16) {
  ParallelismSpec p;
  p.tp = tp;
  p.pp = pp;
  p.dp = dp;
  p.zero_stage = zero;
  p.sequence_parallel = tp > 1;
  p.virtual_stages = v;
  p.pipeline_schedule = v > 1 ? PipelineSchedule::interleaved : PipelineSchedule::one_f_one_b;
  TrainingSpec t = small_training(gb, 128);
  t.grad_reduce_dtype = grads;
  return WorkloadPlan(m, p, t);
}

// Rajbhandari et al. 2020, Figure 1: per-GPU model state with K = 12.
TEST(MemoryPlan, ZeroStagesShardModelStateOverDataParallelism) {
  const double Nd = 8, K = 12;
  for (int zero = 0; zero <= 3; ++zero) {
    WorkloadPlan p = plan(tiny_gpt(), 1, 1, 8, zero);
    double psi = static_cast<double>(workload::stage_params(p, 0).total());
    StateMemory m = state_memory(p, workload::stage_params(p, 0));
    double expect[4][3] = {{2 * psi, 2 * psi, K * psi},
                           {2 * psi, 2 * psi, K * psi / Nd},
                           {2 * psi, 2 * psi / Nd, K * psi / Nd},
                           {2 * psi / Nd, 2 * psi / Nd, K * psi / Nd}};
    EXPECT_DOUBLE_EQ(m.parameters, expect[zero][0]) << "zero " << zero;
    EXPECT_DOUBLE_EQ(m.gradients, expect[zero][1]) << "zero " << zero;
    EXPECT_DOUBLE_EQ(m.optimizer, expect[zero][2]) << "zero " << zero;
  }
}

// Megatron's default for bf16: fp32 main gradients, 4 bytes per parameter
// (2 + 4 + 12 = 18 bytes per parameter unsharded, its distributed-optimizer table).
TEST(MemoryPlan, Fp32MainGradientsAreFourBytesPerParameter) {
  for (int zero : {0, 2}) {
    WorkloadPlan p = plan(tiny_gpt(), 1, 1, 8, zero, 1, 64, GradReduceDtype::automatic);
    double psi = static_cast<double>(workload::stage_params(p, 0).total());
    StateMemory m = state_memory(p, workload::stage_params(p, 0));
    EXPECT_DOUBLE_EQ(m.gradients, (zero >= 2 ? psi / 8 : psi) * 4) << "zero " << zero;
    if (zero == 0) {
      EXPECT_DOUBLE_EQ(m.parameters + m.gradients + m.optimizer, 18 * psi);
    }
  }
}

// training.optimizer_states: Adam's master copy and moments at their own
// precisions, sharded as before. Megatron-Core's distributed-optimizer table
// with a precision-aware optimizer: an fp32 master kept as 16-bit remainders
// of the bf16 weights is 2 bytes, bf16 moments 2 + 2, fp8 moments 1 + 1; a
// bf16 master with bf16 moments 6. fp32 weights are their own master.
TEST(MemoryPlan, OptimizerStatesTakeTheirPrecisions) {
  auto optimizer_per_param = [](OptimizerStates states, Dtype dtype) {
    WorkloadPlan base = plan(tiny_gpt(), 1, 1, 8, 1);
    TrainingSpec t = base.training();
    t.optimizer_states = states;
    t.dtype = dtype;
    WorkloadPlan p(base.model(), base.parallelism(), t);
    const double psi = static_cast<double>(workload::stage_params(p, 0).total());
    return state_memory(p, workload::stage_params(p, 0)).optimizer / (psi / 8);
  };
  using S = StateDtype;
  EXPECT_DOUBLE_EQ(optimizer_per_param({}, Dtype::bf16), 12);
  EXPECT_DOUBLE_EQ(optimizer_per_param({S::fp32, true, S::fp32, S::fp32}, Dtype::bf16), 10);
  EXPECT_DOUBLE_EQ(optimizer_per_param({S::fp32, true, S::bf16, S::bf16}, Dtype::fp8), 6);
  EXPECT_DOUBLE_EQ(optimizer_per_param({S::fp32, false, S::bf16, S::bf16}, Dtype::fp8), 8);
  EXPECT_DOUBLE_EQ(optimizer_per_param({S::bf16, false, S::bf16, S::bf16}, Dtype::bf16), 6);
  EXPECT_DOUBLE_EQ(optimizer_per_param({S::fp32, true, S::fp8, S::fp8}, Dtype::bf16), 4);
  EXPECT_DOUBLE_EQ(optimizer_per_param({S::fp16, false, S::fp32, S::fp32}, Dtype::fp32), 8);
}

// Expert weights shard over the expert-DP group (dp / ep), the rest over dp.
TEST(MemoryPlan, ExpertStateShardsOverExpertDataParallelism) {
  ParallelismSpec p;
  p.dp = 8;
  p.ep = 4;
  p.zero_stage = 1;
  WorkloadPlan w(tiny_moe(), p, small_training(64, 128));
  workload::StageParams sp = workload::stage_params(w, 0);
  ASSERT_GT(sp.expert, 0);
  StateMemory m = state_memory(w, sp);
  EXPECT_DOUBLE_EQ(m.optimizer, 12.0 * (static_cast<double>(sp.dense) / 8 + static_cast<double>(sp.expert) / 2));
}

double chunk_bytes(const WorkloadPlan& p, int vstage, const ActivationOptions& opt) {
  double sum = 0;
  int first = p.split().first_layer(vstage);
  for (int l = first; l < first + p.split().layer_count(vstage); ++l) {
    sum += layer_activation_bytes(p.model(), p.dims(), false, Recompute::none, opt);
  }
  if (vstage == 0) sum += embedding_activation_bytes(p.model(), p.dims());
  if (vstage == p.vstages() - 1) sum += head_activation_bytes(p.model(), p.dims());
  return sum;
}

TEST(MemoryPlan, OneFOneBHoldsPpMicroBatchesOnTheFirstStage) {
  ActivationOptions opt{false, {}};
  WorkloadPlan p = plan(tiny_gpt(8), 2, 4, 2, 1);  // 32 micro-batches per pipeline
  StageActivations first = stage_activations(p, 0, opt);
  StageActivations last = stage_activations(p, 3, opt);
  EXPECT_EQ(first.chunks_in_flight, 4);
  EXPECT_EQ(last.chunks_in_flight, 1);
  EXPECT_DOUBLE_EQ(first.peak_bytes, 4 * chunk_bytes(p, 0, opt));
  EXPECT_DOUBLE_EQ(last.peak_bytes, chunk_bytes(p, 3, opt));
  MemoryPlan mem = plan_memory(p, 80.0, opt);
  EXPECT_EQ(mem.heaviest_stage, 0);
}

// training.attention: unfused keeps the score matrix, its softmax and dropout
// (Korthikanti et al. 2022: 5 a s^2 b bytes per layer) where flash keeps its
// fp32 row statistics (4 a s b): the plan differs by exactly that per layer.
// One GPU, four 128-token sequences, the training settings edited by `edit`.
template <class Edit>
WorkloadPlan one_gpu_plan(const ModelSpec& model, Edit edit) {
  TrainingSpec t = small_training(4, 128);
  edit(t);
  return WorkloadPlan(model, ParallelismSpec{}, t);
}

TEST(MemoryPlan, UnfusedAttentionHoldsKorthikantisScoreTerm) {
  auto make = [](AttentionKernel kernel) {
    return one_gpu_plan(tiny_gpt(4), [&](TrainingSpec& t) { t.attention = kernel; });
  };
  const WorkloadPlan flash = make(AttentionKernel::flash), unfused = make(AttentionKernel::unfused);
  const MemoryPlan f = plan_memory(flash, 80.0), u = plan_memory(unfused, 80.0);
  const double a = 8, s = 128, b = 1, layers = 4;
  EXPECT_DOUBLE_EQ(u.stages[0].activations - f.stages[0].activations, layers * (5 * a * s * s * b - 4 * a * s * b));
}

// training.recompute_num_layers (Megatron's --recompute-method block): one
// GPU, 4 layers, the first N recomputed in full. A micro-batch leaves N layer
// inputs I and 4 - N whole layers W; the backward frees the kept layers
// before it rebuilds the first ones, so a rebuilt layer (W) comes beside N
// inputs only and adds nothing while a layer is kept whole. N = 0 or 4 is full
// recomputation: 4 I, plus W while the last layer is rebuilt.
TEST(MemoryPlan, RecomputeNumLayersKeepsTheOtherLayersWhole) {
  const ActivationOptions opt{true, {}};
  auto plan_with = [&](Recompute rc, int n) {
    return one_gpu_plan(tiny_gpt(4), [&](TrainingSpec& t) {
      t.recompute = rc;
      t.recompute_num_layers = n;
    });
  };
  auto peak = [&](Recompute rc, int n) { return stage_activations(plan_with(rc, n), 0, opt).peak_bytes; };
  const double full = peak(Recompute::full, 0);
  EXPECT_DOUBLE_EQ(peak(Recompute::full, 4), full);
  EXPECT_DOUBLE_EQ(peak(Recompute::full, 9), full);
  const WorkloadPlan p = plan_with(Recompute::full, 1);
  const double whole = layer_activation_bytes(p.model(), p.dims(), false, Recompute::none, opt);
  const double input = layer_activation_bytes(p.model(), p.dims(), false, Recompute::full, opt);
  ASSERT_LT(input, whole);
  const double none = peak(Recompute::none, 0), one = peak(Recompute::full, 1), three = peak(Recompute::full, 3);
  EXPECT_NEAR(none - one, whole - input, 1e-9 * none);
  EXPECT_NEAR(one - three, 2 * (whole - input), 1e-9 * none);
  EXPECT_NEAR(full - three, input, 1e-9 * none);
}

// recompute_method: uniform (Megatron's --recompute-method uniform): one GPU,
// 4 layers, every layer re-run, N at a time from one kept input I. The
// backward of a group rebuilds its N layers whole (W each) beside the inputs
// of the groups not yet freed: N = 1 is full recomputation (4 I + W), N = 2
// holds 2 I + 2 W, N = 3 (groups of 3 and 1) I + 3 W, N = 4 I + 4 W, which is
// no recomputation's 4 W plus the one input.
TEST(MemoryPlan, RecomputeUniformKeepsOneInputPerGroup) {
  const ActivationOptions opt{true, {}};
  auto plan_with = [&](Recompute rc, int n, RecomputeMethod method) {
    return one_gpu_plan(tiny_gpt(4), [&](TrainingSpec& t) {
      t.recompute = rc;
      t.recompute_num_layers = n;
      t.recompute_method = method;
    });
  };
  auto peak = [&](int n) {
    return stage_activations(plan_with(Recompute::full, n, RecomputeMethod::uniform), 0, opt).peak_bytes;
  };
  const WorkloadPlan p = plan_with(Recompute::full, 1, RecomputeMethod::uniform);
  const double whole = layer_activation_bytes(p.model(), p.dims(), false, Recompute::none, opt);
  const double input = layer_activation_bytes(p.model(), p.dims(), false, Recompute::full, opt);
  ASSERT_LT(input, whole);
  const double full = stage_activations(plan_with(Recompute::full, 0, RecomputeMethod::block), 0, opt).peak_bytes;
  const double none = stage_activations(plan_with(Recompute::none, 0, RecomputeMethod::block), 0, opt).peak_bytes;
  EXPECT_DOUBLE_EQ(peak(0), full);
  EXPECT_DOUBLE_EQ(peak(1), full);
  EXPECT_NEAR(peak(2) - full, (2 * input + 2 * whole) - (4 * input + whole), 1e-9 * full);
  EXPECT_NEAR(peak(3) - full, (input + 3 * whole) - (4 * input + whole), 1e-9 * full);
  EXPECT_NEAR(peak(4) - none, input, 1e-9 * none);
  EXPECT_DOUBLE_EQ(peak(9), peak(4));
}

// training.dtype fp8 reaches the activation model: the plan keeps the linear
// layers' inputs as their one-byte FP8 copies (activation_memory.h).
TEST(MemoryPlan, Fp8TrainingKeepsFp8LinearInputs) {
  auto make = [](Dtype dtype) { return one_gpu_plan(tiny_llama(4), [&](TrainingSpec& t) { t.dtype = dtype; }); };
  const WorkloadPlan bf16 = make(Dtype::bf16), fp8 = make(Dtype::fp8);
  ActivationOptions opt{true, {}, true};
  opt.modules = fp8.training().recompute_modules;
  EXPECT_DOUBLE_EQ(plan_memory(fp8, 80.0).stages[0].activations, stage_activations(bf16, 0, opt).peak_bytes);
  EXPECT_LT(plan_memory(fp8, 80.0).stages[0].activations, plan_memory(bf16, 80.0).stages[0].activations);
}

// training.cpu_offload_layers (pp = 1): four equal layers, the first two
// offloaded, synced at layers 1 and 3. Group 0 leaves once layer 1 is done,
// group 1 once layer 3 is: the peak is three layers just before the last
// sync, or two with the head's activations after it; without offloading, all
// four and the head.
TEST(MemoryPlan, OffloadedLayersLeaveTheGpuAtTheirSync) {
  ParallelismSpec par;
  TrainingSpec t = small_training(2, 128);
  const WorkloadPlan whole(tiny_llama(4), par, t);
  t.cpu_offload_layers = 2;
  const WorkloadPlan offloaded(tiny_llama(4), par, t);
  const ActivationOptions opt = activation_options(whole);
  const double layer = layer_activation_bytes(whole.model(), whole.dims(), false, Recompute::none, opt);
  const double head = head_activation_bytes(whole.model(), whole.dims());
  EXPECT_DOUBLE_EQ(offloaded_layer_bytes(offloaded, false), layer);
  const StageActivations a = stage_activations(offloaded, 0, opt);
  EXPECT_DOUBLE_EQ(a.peak_bytes, std::max(3 * layer, 2 * layer + head));
  EXPECT_EQ(a.chunks_in_flight, 1);
  EXPECT_DOUBLE_EQ(stage_activations(whole, 0, opt).peak_bytes, 4 * layer + head);
  EXPECT_DOUBLE_EQ(plan_memory(offloaded, 80.0).stages[0].activations, a.peak_bytes);
  // The two offloaded layers sit in host memory, outside the GPU's total.
  EXPECT_DOUBLE_EQ(a.host_bytes, 2 * layer);
  EXPECT_DOUBLE_EQ(plan_memory(offloaded, 80.0).stages[0].host_activations, 2 * layer);
  EXPECT_DOUBLE_EQ(plan_memory(whole, 80.0).stages[0].host_activations, 0);
}

// Interleaving: stage 0 holds 2 (pp - 1) + (v - 1) pp + 1 chunks, i.e. the
// activations of pp + (pp - 1) / v micro-batches of the stage's layers
// (Korthikanti et al. 2022, section 4.2.3; Narayanan et al. 2021).
TEST(MemoryPlan, InterleavedScheduleHoldsMore) {
  ActivationOptions opt{false, {}};
  const int pp = 4, v = 2, layers = 16;
  ModelSpec m = tiny_gpt(layers);
  m.norm = Norm::rmsnorm;  // Llama-style: no embedding dropout mask to count on stage 0
  WorkloadPlan p = plan(m, 1, pp, 1, 0, v, 16);
  StageActivations first = stage_activations(p, 0, opt);
  EXPECT_EQ(first.chunks_in_flight, 2 * (pp - 1) + (v - 1) * pp + 1);
  double per_layer = layer_activation_bytes(p.model(), p.dims(), false, Recompute::none, opt);
  EXPECT_DOUBLE_EQ(first.peak_bytes, layers / pp * (pp + (pp - 1.0) / v) * per_layer);
  WorkloadPlan plain = plan(m, 1, pp, 1, 0, 1, 16);
  EXPECT_DOUBLE_EQ(stage_activations(plain, 0, opt).peak_bytes, layers / pp * pp * per_layer);
}

// Combined 1F1B (training.overlap_moe_expert_parallel_comm) runs one more
// warm-up forward: every stage holds one more chunk's activations (pp 1: two
// micro-batches, the next forward's beside the backward's).
TEST(MemoryPlan, CombinedOneFOneBHoldsOneMoreChunk) {
  ActivationOptions opt{false, {}};
  for (auto [pp, v] : {std::pair{1, 1}, std::pair{2, 2}}) {
    ParallelismSpec p;
    p.pp = pp, p.dp = 2, p.ep = 2, p.virtual_stages = v;
    p.pipeline_schedule = v > 1 ? PipelineSchedule::interleaved : PipelineSchedule::one_f_one_b;
    TrainingSpec t = small_training(16, 128);
    ModelSpec m = tiny_moe(4);
    const WorkloadPlan plain(m, p, t);
    t.overlap_moe_expert_parallel_comm = true;
    const WorkloadPlan combined(m, p, t);
    for (int stage = 0; stage < pp; ++stage) {
      const StageActivations a = stage_activations(plain, stage, opt), b = stage_activations(combined, stage, opt);
      EXPECT_EQ(b.chunks_in_flight, a.chunks_in_flight + 1) << pp << " " << stage;
      EXPECT_GT(b.peak_bytes, a.peak_bytes);
    }
  }
}

TEST(MemoryPlan, OutOfMemoryVerdictInGiB) {
  WorkloadPlan p = plan(tiny_gpt(), 1, 2, 1, 0);
  MemoryPlan roomy = plan_memory(p, 80.0);
  EXPECT_DOUBLE_EQ(roomy.capacity_bytes, 80.0 * 1073741824.0);
  EXPECT_FALSE(roomy.oom.has_value());
  double need = roomy.heaviest().total();
  MemoryPlan tight = plan_memory(p, 0.5 * need / kGiB);
  ASSERT_TRUE(tight.oom.has_value());
  EXPECT_DOUBLE_EQ(tight.oom->required_bytes, need);
  EXPECT_DOUBLE_EQ(tight.oom->excess_bytes(), need - 0.5 * need);
  EXPECT_EQ(tight.stages.size(), 2u);
}

ExperimentSpec gpt3_on_a100(int tp, int pp, int dp, int zero, Recompute rc) {
  ExperimentSpec e;
  e.model = gpt3_175b();
  e.parallelism.tp = tp;
  e.parallelism.pp = pp;
  e.parallelism.dp = dp;
  e.parallelism.zero_stage = zero;
  e.parallelism.sequence_parallel = tp > 1;
  e.training.global_batch_size = 1536;
  e.training.seq_length = 2048;
  e.training.recompute = rc;
  e.hardware.gpu.memory_gb = 80;
  return e;
}

TEST(PlanSummary, Gpt3On1024A100sFitsAndDataParallelAloneDoesNot) {
  PlanSummary fits = summarize_plan(gpt3_on_a100(8, 16, 8, 1, Recompute::selective));
  EXPECT_EQ(fits.parameters, workload::count_parameters(gpt3_175b(), 2048).total);
  EXPECT_EQ(fits.active_parameters, fits.parameters);
  EXPECT_EQ(fits.pp_stage_memory_gb.size(), 16u);
  EXPECT_FALSE(fits.oom.has_value());
  EXPECT_GT(fits.hardware_flops, fits.model_flops);
  double sum = fits.parameters_gb + fits.gradients_gb + fits.optimizer_gb + fits.activations_gb + fits.comm_buffers_gb;
  EXPECT_NEAR(sum, fits.peak_memory_gb, 1e-9);
  EXPECT_DOUBLE_EQ(fits.peak_memory_gb, fits.pp_stage_memory_gb[static_cast<std::size_t>(fits.binding_stage)]);

  // 175 B parameters x 16 bytes on every GPU: about 2.6 TiB.
  PlanSummary replicated = summarize_plan(gpt3_on_a100(1, 1, 512, 0, Recompute::full));
  ASSERT_TRUE(replicated.oom.has_value());
  EXPECT_GT(replicated.oom->required_gb, 16.0 * 174e9 / kGiB);
  EXPECT_DOUBLE_EQ(replicated.oom->capacity_gb, 80.0);
  EXPECT_NEAR(replicated.oom->excess_gb, replicated.oom->required_gb - 80.0, 1e-9);
}

}  // namespace
}  // namespace pf::models::memory

namespace pf::models::memory {
namespace {

// Offloaded activations must fit the host memory per GPU where the hardware
// states it: GPT-3 175B on one 8-GPU pipeline-free replica with 48 of 96
// layers offloaded holds their activations in host memory, and a host
// smaller than that makes the plan not fit (the GPU side still fits).
TEST(PlanSummary, OffloadedActivationsMustFitTheHostMemory) {
  ExperimentSpec e = gpt3_on_a100(8, 1, 1, 1, Recompute::none);
  e.training.global_batch_size = 8;
  e.training.cpu_offload_layers = 48;
  e.hardware.gpu.memory_gb = 1000;
  const PlanSummary unstated = summarize_plan(e);
  ASSERT_GT(unstated.host_activations_gb, 0);
  EXPECT_TRUE(unstated.fits());
  e.hardware.node.host_memory_gb = 2 * unstated.host_activations_gb;
  EXPECT_FALSE(summarize_plan(e).host_oom.has_value());
  e.hardware.node.host_memory_gb = 0.5 * unstated.host_activations_gb;
  const PlanSummary tight = summarize_plan(e);
  ASSERT_TRUE(tight.host_oom.has_value());
  EXPECT_FALSE(tight.oom.has_value());
  EXPECT_FALSE(tight.fits());
  EXPECT_DOUBLE_EQ(tight.host_oom->required_gb, unstated.host_activations_gb);
  EXPECT_DOUBLE_EQ(tight.host_oom->excess_gb, 0.5 * unstated.host_activations_gb);
}

}  // namespace
}  // namespace pf::models::memory
