// `run`'s physics on small experiments, under mpiexec on 1 and 2 ranks: the
// pipeline bubble of 1F1B and interleaved schedules against their closed
// forms, compute scaling with peak FLOPs, and what DP gradient overlap hides.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "core/communicator.h"
#include "models/collective/collective_types.h"
#include "models/memory/memory_plan.h"
#include "io/config/experiment_loader.h"
#include "models/training/kernel_progress.h"
#include "models/training/op_pricing.h"
#include "models/training/training_setup.h"
#include "models/training/training_workload.h"
#include "io/run/training_run.h"
#include "models/workload/gpu_program.h"

namespace pf::models::training {
namespace {

using run::RunOptions;
using run::run_training;

const std::string kExperiment = std::string(PF_SOURCE_ROOT) + "/tests/mpi/training/small-pipeline.yaml";

RunResult run(std::vector<std::string> overrides) {
  const ExperimentSpec e = config::load_experiment(kExperiment, overrides);
  return run_training(e, core::Communicator::world(), RunOptions{});
}

double kind_seconds(const RunResult& r, const std::string& kind) {
  for (const KindTime& k : r.top_ops)
    if (k.kind == kind) return k.seconds;
  return -1;
}

// The longest op kind of the run whose name does not start with `skip` (a
// communication family whose times include waiting).
std::string longest_kind_but(const RunResult& r, const std::string& skip) {
  for (const KindTime& k : r.top_ops)
    if (k.kind.rfind(skip, 0) != 0) return k.kind;
  return {};
}

// Four pipeline stages on one 4-GPU server, nothing but the pipeline: dp 1,
// no launch overhead, a 64-token vocabulary so that the embedding and head
// do not unbalance the first and last stage (< 0.3% of a stage).
std::vector<std::string> pipeline(int microbatches) {
  return {"topology.nodes=1", "hardware.node.gpus_per_node=4", "hardware.node.nics_per_node=4", "parallelism.dp=1",
          "parallelism.pp=4", "training.global_batch_size=" + std::to_string(microbatches),
          "hardware.gpu.efficiency.communication_overhead_us=0", "training.host_overhead_us=0", "model.vocab_size=64", "model.hidden_size=4096",
          "model.ffn_hidden_size=16384", "model.num_attention_heads=32", "model.num_kv_heads=32", "model.layers=32"};
}

TEST(TrainingPhysics, OneFOneBBubbleIsPMinusOneOverM) {
  for (int m : {8, 16}) {
    const RunResult r = run(pipeline(m));
    const double ideal = r.forward_s + r.backward_s;  // the binding stage's own work
    const double expected = 3.0 / m;                  // (p - 1) / m
    EXPECT_NEAR(r.bubble_s / ideal, expected, 0.02 * expected) << "m = " << m;
    EXPECT_NEAR(r.collective_exposed_s, 0.0, 1e-12);
    // The bubble is the pipeline's fill and drain, nothing else. The binding
    // stage is the last (the head's GEMMs and loss outweigh the first stage's
    // embedding lookup): it waits on its receive until the first micro-batch
    // has crossed the three stages before it, and after its last backward the
    // three before it still drain theirs.
    EXPECT_EQ(r.binding_stage, 3) << "m = " << m;
    const double forward = r.forward_s / m, backward = r.backward_s / m;  // one micro-batch on one stage
    EXPECT_NEAR(r.p2p_wait_s, 3 * forward, 0.02 * 3 * forward) << "m = " << m;
    EXPECT_NEAR(r.bubble_s - r.p2p_wait_s, 3 * backward, 0.02 * 3 * backward) << "m = " << m;
    // Its own work is its phases; every other stage's is less.
    ASSERT_EQ(r.pp_stage_work_s.size(), 4u);
    EXPECT_NEAR(r.pp_stage_work_s[3], r.forward_s + r.backward_s + r.optimizer_s, 1e-9);
    for (int s = 0; s < 3; ++s) EXPECT_LT(r.pp_stage_work_s[s], r.pp_stage_work_s[3]) << "stage " << s;
  }
}

// A 131,072-token vocabulary puts the output layer's GEMMs and the loss on
// the last stage: it binds the step, and the report shows its phases, its
// extra work per stage and a bubble that is only the pipeline's fill and
// drain, not the first stage's wait for it.
TEST(TrainingPhysics, TheHeaviestPipelineStageBindsTheReport) {
  auto o = pipeline(8);
  for (std::string& s : o)
    if (s == "model.vocab_size=64") s = "model.vocab_size=131072";
  const RunResult r = run(o);
  ASSERT_EQ(r.pp_stage_work_s.size(), 4u);
  EXPECT_EQ(r.binding_stage, 3);
  // The middle stages hold the same eight layers and nothing else.
  EXPECT_NEAR(r.pp_stage_work_s[1], r.pp_stage_work_s[2], 1e-9 * r.pp_stage_work_s[1]);
  const double head = r.pp_stage_work_s[3] - r.pp_stage_work_s[1];
  EXPECT_GT(head, 0.05 * r.pp_stage_work_s[1]);  // 2 x 8,192 tokens x 4,096 x 131,072 x 3 GEMMs and more
  // 1F1B over 8 micro-batches paced by the last stage: its own work plus
  // three micro-batches of the stages before it (fill) and after its last
  // backward (drain), each a layer stage's forward or backward.
  const double ahead = 3 * r.pp_stage_work_s[1] / 8;
  EXPECT_NEAR(r.step_time_s, r.pp_stage_work_s[3] + ahead, 0.03 * r.step_time_s);
  EXPECT_NEAR(r.bubble_s, r.step_time_s - r.pp_stage_work_s[3], 1e-9);
}

TEST(TrainingPhysics, InterleavedBubbleIsPMinusOneOverVM) {
  auto o = pipeline(8);
  o.push_back("parallelism.pipeline_schedule=interleaved");
  o.push_back("parallelism.virtual_stages=2");
  const RunResult r = run(o);
  const double expected = 3.0 / (2 * 8);
  EXPECT_NEAR(r.bubble_s / (r.forward_s + r.backward_s), expected, 0.02 * expected);
  // And it beats plain 1F1B on the same work.
  EXPECT_LT(r.step_time_s, run(pipeline(8)).step_time_s);
}

// One GPU, no communication: compute-bound kernels (GEMMs, attention) halve
// exactly with twice the peak; memory-bound ones (norms, activations) do not,
// so the step shrinks by close to, but less than, 2x. (No per-kernel floor and
// no host cost: neither scales with the peak.)
TEST(TrainingPhysics, DoublingPeakFlopsHalvesComputeBoundWork) {
  const std::vector<std::string> one = {"topology.nodes=1", "hardware.node.gpus_per_node=1",
                                        "hardware.node.nics_per_node=1", "parallelism.pp=1", "parallelism.dp=1",
                                        "hardware.gpu.gemm.fixed_us=0", "training.host_overhead_us=0",
                                        // 4,096 tokens per micro-batch: the wgrads' fp32 main-gradient
                                        // traffic (K / 4 flop per byte) stays under the doubled ridge
                                        "training.seq_length=4096"};
  auto fast = one;
  fast.push_back("hardware.gpu.peak_tflops.bf16=624");
  const RunResult a = run(one), b = run(fast);
  EXPECT_GT(a.step_time_s / b.step_time_s, 1.75);
  EXPECT_LE(a.step_time_s / b.step_time_s, 2.0 + 1e-9);
  for (const char* gemm : {"mlp_fc1_fwd", "mlp_fc2_dgrad"}) {
    ASSERT_GT(kind_seconds(b, gemm), 0) << gemm;
    EXPECT_NEAR(kind_seconds(a, gemm) / kind_seconds(b, gemm), 2.0, 0.01) << gemm;
  }
  EXPECT_EQ(a.collective_total_s, 0.0);
}

// hardware.gpu.speed_spread: the job runs at its slowest part's pace. Four
// pipeline stages, nothing but compute and p2p: every kernel, and with it the
// binding stage's forward and backward, takes 1 + sigma E[max of 4] longer;
// a one-GPU job has no slower part to wait for.
TEST(TrainingPhysics, SpeedSpreadSlowsEveryKernelToTheSlowestOfTheJob) {
  auto even = pipeline(8), spread = pipeline(8);
  for (auto* o : {&even, &spread}) o->push_back("hardware.gpu.speed_fluctuation=0");
  even.push_back("hardware.gpu.speed_spread=0");
  spread.push_back("hardware.gpu.speed_spread=0.02");
  const RunResult a = run(even), b = run(spread);
  const double factor = 1 + 0.02 * 1.0293754;  // E[max of 4 standard normals]
  EXPECT_NEAR(b.forward_s / a.forward_s, factor, 1e-9);
  EXPECT_NEAR(b.backward_s / a.backward_s, factor, 1e-9);
  const std::string top = longest_kind_but(a, "pp_");  // pipeline receives include their waits
  ASSERT_GT(kind_seconds(b, top), 0) << top;
  EXPECT_NEAR(kind_seconds(b, top) / kind_seconds(a, top), factor, 1e-9) << top;
  EXPECT_GT(b.step_time_s, a.step_time_s);
  const std::vector<std::string> one = {"topology.nodes=1", "hardware.node.gpus_per_node=1",
                                        "hardware.node.nics_per_node=1", "parallelism.pp=1", "parallelism.dp=1"};
  auto one_spread = one;
  one_spread.push_back("hardware.gpu.speed_spread=0.02");
  EXPECT_EQ(run(one).step_time_s, run(one_spread).step_time_s);
}

// hardware.gpu.speed_fluctuation: one part's speed swinging within a run
// costs what the GPUs in lockstep wait for. Four pipeline stages wait for
// each other every micro-batch: every kernel takes 1 + sigma E[max of 4]
// longer. Four data-parallel replicas (ZeRO-1) meet only at the step's
// gradient reduction and average their swings out: the step is unchanged.
// Under fp8 delayed scaling they all-reduce their amaxes every forward, and
// under ZeRO-3 they gather every layer's parameters from one another: the
// four are in lockstep again.
TEST(TrainingPhysics, SpeedFluctuationCostsOnlyWhatTheLockstepGroupWaitsFor) {
  const auto with = [](std::vector<std::string> o, const char* sigma) {
    o.push_back("hardware.gpu.speed_spread=0");
    o.push_back(std::string("hardware.gpu.speed_fluctuation=") + sigma);
    return o;
  };
  const double factor = 1 + 0.02 * 1.0293754;  // E[max of 4 standard normals]
  const RunResult a = run(with(pipeline(8), "0")), b = run(with(pipeline(8), "0.02"));
  EXPECT_NEAR(b.forward_s / a.forward_s, factor, 1e-9);
  EXPECT_NEAR(b.backward_s / a.backward_s, factor, 1e-9);
  std::vector<std::string> replicas = {"topology.nodes=1", "hardware.node.gpus_per_node=4",
                                       "hardware.node.nics_per_node=4", "parallelism.pp=1", "parallelism.dp=4",
                                       "training.global_batch_size=8", "training.host_overhead_us=0"};
  EXPECT_EQ(run(with(replicas, "0")).step_time_s, run(with(replicas, "0.02")).step_time_s);
  // fp8 delayed scaling all-reduces the amaxes over the replicas every forward: in lockstep again.
  std::vector<std::string> delayed = {"hardware=" + std::string(PF_SOURCE_ROOT) + "/configs/hardware/h100-sxm-80gb.yaml"};
  delayed.insert(delayed.end(), replicas.begin(), replicas.end());
  delayed.push_back("hardware.gpu.efficiency.overlap_sm_cost=0");  // kernels exact beside the DP collectives
  delayed.push_back("training.dtype=fp8");
  delayed.push_back("training.fp8_recipe=delayed");
  const RunResult e = run(with(delayed, "0")), f = run(with(delayed, "0.02"));
  const std::string longest = longest_kind_but(e, "dp_");
  ASSERT_GT(kind_seconds(f, longest), 0) << longest;
  EXPECT_NEAR(kind_seconds(f, longest) / kind_seconds(e, longest), factor, 1e-9) << longest;
  EXPECT_GT(f.step_time_s, e.step_time_s);
  delayed.back() = "training.fp8_recipe=tensorwise";  // current scaling reduces no amax across replicas
  EXPECT_EQ(run(with(delayed, "0")).step_time_s, run(with(delayed, "0.02")).step_time_s);
  replicas.push_back("parallelism.zero_stage=3");
  replicas.push_back("hardware.gpu.efficiency.overlap_sm_cost=0");  // no stretch beside the gathers: kernels exact
  const RunResult c = run(with(replicas, "0")), d = run(with(replicas, "0.02"));
  const std::string top = longest_kind_but(c, "dp_");  // the phases also wait on the gathers
  ASSERT_GT(kind_seconds(d, top), 0) << top;
  EXPECT_NEAR(kind_seconds(d, top) / kind_seconds(c, top), factor, 1e-9) << top;
  EXPECT_GT(d.step_time_s, c.step_time_s);
}

// training.cpu_offload_layers on one GPU, 16 layers, 8 offloaded (synced at
// every second layer). Each copy moves one layer's saved tensors at the host
// link's rate, so the d2h kind adds up to M x 8 copies exactly. A fast link
// hides every copy behind the two layers of compute it has: the step is the
// one without offloading. A slow one makes the copies the critical path,
// forward (each copy starts when the one before ends) and backward (each
// reload waited for before the next starts): the step grows by 2 x 8 copies
// per micro-batch, exactly linear in the copy time.
// One GPU, no pipeline, no host model: where the offloading tests start.
std::vector<std::string> one_gpu_no_host() {
  return {"topology.nodes=1", "hardware.node.gpus_per_node=1", "hardware.node.nics_per_node=1",
          "parallelism.pp=1", "parallelism.dp=1", "training.host_overhead_us=0"};
}

RunResult run_with_host_link(std::vector<std::string> overrides, double gbps) {
  overrides.push_back("hardware.node.host_link_gbps=" + std::to_string(gbps));
  return run(overrides);
}

// DeepSpeed's BF16_Optimizer (training.main_grad_accumulation: cast_add) adds
// every micro-batch's bf16 weight gradients into the fp32 ones in kernels of
// their own: 18 bytes per parameter per micro-batch at the memory-bound rate,
// 10 for Megatron's unfused add. On one GPU nothing hides them: the step grows
// by exactly their time.
TEST(TrainingPhysics, MainGradAccumulationCostsItsBytesPerMicroBatch) {
  const int microbatches = 4, layers = 16;
  const double h = 2048, f = 8192, vocab = 1024;
  std::vector<std::string> one = one_gpu_no_host();
  one.push_back("training.global_batch_size=" + std::to_string(microbatches));
  one.push_back("model.layers=" + std::to_string(layers));
  auto with = [&](const std::string& mode) {
    auto o = one;
    o.push_back("training.main_grad_accumulation=" + mode);
    return run(o);
  };
  const RunResult fused = with("fused"), cast_add = with("cast_add"), add = with("add");
  EXPECT_LT(kind_seconds(fused, "main_grad_accumulate"), 0.0);  // no such kernel
  const double cast_add_s = kind_seconds(cast_add, "main_grad_accumulate");
  EXPECT_NEAR(cast_add.step_time_s - fused.step_time_s, cast_add_s, 1e-9);
  EXPECT_NEAR(cast_add_s / kind_seconds(add, "main_grad_accumulate"), 18.0 / 10.0, 1e-6);  // picosecond ticks
  // Parameters of the GeLU/LayerNorm layers (QKV, projection, fc1, fc2 with
  // biases, two norms) and the untied embedding and head: A100 HBM at 85 %.
  const double params = layers * (4 * h * h + 2 * h * f + 9 * h + f) + 2 * vocab * h;
  EXPECT_NEAR(cast_add_s, microbatches * 18 * params / (2039e9 * 0.85), 0.01 * cast_add_s);
}

TEST(TrainingPhysics, ActivationOffloadHidesBehindComputeUntilTheHostLinkBinds) {
  std::vector<std::string> one = one_gpu_no_host();
  const RunResult plain = run(one);
  one.push_back("training.cpu_offload_layers=8");
  auto with_link = [&](double gbps) { return run_with_host_link(one, gbps); };
  const ExperimentSpec e = config::load_experiment(kExperiment, one);
  const workload::WorkloadPlan plan(e);
  const double bytes = static_cast<double>(std::llround(memory::offloaded_layer_bytes(plan, false)));
  const double m = static_cast<double>(plan.microbatches());

  const RunResult fast = with_link(10000);
  EXPECT_EQ(fast.step_time_s, plain.step_time_s);
  EXPECT_EQ(fast.offload_wait_s, 0.0);

  const RunResult slow = with_link(1), slower = with_link(0.5);
  const double c1 = bytes / 1e9, c2 = bytes / 0.5e9;
  EXPECT_NEAR(kind_seconds(slow, "offload_d2h"), m * 8 * c1, 1e-9 * m * 8 * c1);
  EXPECT_NEAR(kind_seconds(slower, "reload_h2d"), m * 8 * c2, 1e-9 * m * 8 * c2);
  EXPECT_NEAR(slower.step_time_s - slow.step_time_s, m * 16 * (c2 - c1), 1e-6 * slower.step_time_s);
  EXPECT_NEAR(slower.offload_wait_s - slow.offload_wait_s, m * 16 * (c2 - c1), 1e-6 * slower.step_time_s);
  EXPECT_GT(slow.offload_wait_s, 0.5 * (slow.step_time_s - plain.step_time_s));
}

// training.offload_modules (fine-grained offloading of the routed experts'
// fc1 and activation inputs), one GPU, 16 MoE layers. Each offload moves its
// tensor at the host link's rate: the d2h kind adds up to M x 16 x (fc1 input
// + activation input) exactly. A fast link hides every copy (each reload has
// the module's own backward GEMM beside it): the step is the one without. A
// slow one shows: every reload waits for its own offload.
TEST(TrainingPhysics, FineGrainedOffloadMovesTheExpertsInputsAndHidesBehindCompute) {
  std::vector<std::string> moe = one_gpu_no_host();
  moe.insert(moe.end(), {"model.moe.num_experts=4", "model.moe.top_k=2", "model.moe.expert_ffn_hidden_size=2048"});
  const RunResult plain = run(moe);
  moe.push_back("training.offload_modules=[expert_fc1, moe_act]");
  auto with_link = [&](double gbps) { return run_with_host_link(moe, gbps); };
  const workload::WorkloadPlan plan(config::load_experiment(kExperiment, moe));
  const workload::LocalDims& d = plan.dims();
  const double bytes = 2.0 * static_cast<double>(d.expert_rows * (d.hidden + d.expert_fc1_local));
  const double copies = static_cast<double>(plan.microbatches()) * 16;

  const RunResult fast = with_link(10000);
  EXPECT_EQ(fast.step_time_s, plain.step_time_s);
  EXPECT_EQ(fast.offload_wait_s, 0.0);
  EXPECT_LT(fast.memory.activations_gb, plain.memory.activations_gb);
  EXPECT_NEAR(fast.memory.host_activations_gb, plain.memory.activations_gb - fast.memory.activations_gb, 1e-9);

  const RunResult slow = with_link(2);
  EXPECT_NEAR(kind_seconds(slow, "offload_d2h"), copies * bytes / 2e9, 1e-9 * copies * bytes / 2e9);
  EXPECT_NEAR(kind_seconds(slow, "reload_h2d"), copies * bytes / 2e9, 1e-9 * copies * bytes / 2e9);
  EXPECT_GT(slow.offload_wait_s, 0.5 * copies * bytes / 2e9);
  EXPECT_GT(slow.step_time_s, plain.step_time_s + slow.offload_wait_s - 1e-9);
}

// training.attention picks the kernel that prices attention and nothing else:
// one GPU, FlashAttention-2 at 0.30 of peak against Triton FlashAttention at
// 0.12, both directions 2.5x slower, and the step longer by exactly the
// attention time added (everything else unchanged).
TEST(TrainingPhysics, TritonFlashAttentionSlowsAttentionOnly) {
  const std::vector<std::string> one = {"topology.nodes=1", "hardware.node.gpus_per_node=1",
                                        "hardware.node.nics_per_node=1", "parallelism.pp=1", "parallelism.dp=1",
                                        "training.host_overhead_us=0", "hardware.gpu.efficiency.attention_flash2=0.30",
                                        "hardware.gpu.efficiency.attention_flash_triton=0.12",
                                        // long sequences: both attention kernels among the top five kinds
                                        "training.seq_length=16384", "training.global_batch_size=2"};
  auto fa2 = one, triton = one;
  fa2.push_back("training.attention=flash2");
  triton.push_back("training.attention=flash_triton");
  const RunResult a = run(fa2), b = run(triton);
  double added = 0;
  for (const char* kind : {"attention_fwd", "attention_bwd"}) {
    ASSERT_GT(kind_seconds(a, kind), 0) << kind;
    EXPECT_NEAR(kind_seconds(b, kind) / kind_seconds(a, kind), 0.30 / 0.12, 1e-9) << kind;
    added += kind_seconds(b, kind) - kind_seconds(a, kind);
  }
  EXPECT_NEAR(b.step_time_s - a.step_time_s, added, 1e-9);
}

// training.recompute_num_layers on one GPU (16 layers, no overlap): the
// step grows by N / 16 of what full recomputation adds, N layers' forward
// re-run; 16 is full recomputation to the nanosecond.
TEST(TrainingPhysics, RecomputeNumLayersAddsItsLayersForward) {
  const std::vector<std::string> one = {"topology.nodes=1", "hardware.node.gpus_per_node=1",
                                        "hardware.node.nics_per_node=1", "parallelism.pp=1", "parallelism.dp=1",
                                        "training.host_overhead_us=0", "training.global_batch_size=2"};
  auto none = one, full = one, four = one, all = one;
  full.push_back("training.recompute=full");
  four.insert(four.end(), {"training.recompute=full", "training.recompute_num_layers=4"});
  all.insert(all.end(), {"training.recompute=full", "training.recompute_num_layers=16"});
  const RunResult a = run(none), b = run(full), c = run(four), d = run(all);
  const double added = b.step_time_s - a.step_time_s;
  ASSERT_GT(added, 0);
  EXPECT_NEAR(c.step_time_s - a.step_time_s, added * 4 / 16, 1e-6 * added);
  EXPECT_NEAR(d.step_time_s, b.step_time_s, 1e-12);
}

// recompute_method: uniform on one GPU (16 layers, no overlap): every layer
// re-runs whatever the group size, so the step equals full recomputation's
// to the nanosecond; only the order of the re-runs changes.
TEST(TrainingPhysics, RecomputeUniformCostsFullRecomputation) {
  const std::vector<std::string> one = {"topology.nodes=1", "hardware.node.gpus_per_node=1",
                                        "hardware.node.nics_per_node=1", "parallelism.pp=1", "parallelism.dp=1",
                                        "training.host_overhead_us=0", "training.global_batch_size=2",
                                        "training.recompute=full"};
  const RunResult full = run(one);
  for (int n : {3, 16}) {
    auto u = one;
    u.insert(u.end(), {"training.recompute_method=uniform", "training.recompute_num_layers=" + std::to_string(n)});
    EXPECT_NEAR(run(u).step_time_s, full.step_time_s, 1e-12) << n;
  }
}

// Sliding-window attention on one GPU: a window as long as the sequence is
// full causal attention to the nanosecond; a 1,024-key window over 16,384
// keys computes, per 128-row query tile, the 9 key tiles of its band (8 past
// tiles plus the diagonal's) and the kernel's fixed work instead of the causal
// mask's (s + 128) / 2 keys on average: attention time falls to
// (1024 + 128 + k0) / ((16384 + 128) / 2 + k0) of the full layer's, k0 the
// preset's attention_kv_overhead, within the first 1,024 rows' shorter band;
// and nothing but attention changes.
TEST(TrainingPhysics, SlidingWindowAttentionComputesOnlyItsBand) {
  const std::vector<std::string> one = {"topology.nodes=1", "hardware.node.gpus_per_node=1",
                                        "hardware.node.nics_per_node=1", "parallelism.pp=1", "parallelism.dp=1",
                                        "training.host_overhead_us=0", "training.seq_length=16384",
                                        "training.global_batch_size=1",
                                        // a narrow MLP: both attention kernels stay among the top five kinds
                                        "model.ffn_hidden_size=2048"};
  auto full = one, wide = one, narrow = one;
  wide.push_back("model.sliding_window.size=16383");
  narrow.push_back("model.sliding_window.size=1024");
  const RunResult a = run(full), b = run(wide), c = run(narrow);
  EXPECT_NEAR(b.step_time_s, a.step_time_s, 1e-12);
  const double k0 = config::load_experiment(kExperiment, one).hardware.gpu.efficiency.attention_kv_overhead;
  const double band = (1024.0 + 128.0 + k0) / ((16384.0 + 128.0) / 2.0 + k0);
  double saved = 0;
  for (const char* kind : {"attention_fwd", "attention_bwd"}) {
    ASSERT_GT(kind_seconds(a, kind), 0) << kind;
    EXPECT_NEAR(kind_seconds(c, kind) / kind_seconds(a, kind), band, 0.07 * band) << kind;
    saved += kind_seconds(a, kind) - kind_seconds(c, kind);
  }
  EXPECT_NEAR(a.step_time_s - c.step_time_s, saved, 1e-9);
}

// Data parallelism over 8 GPUs on two servers, ZeRO 0 (gradient all-reduce
// only). Without overlap every bucket's reduction waits for the backward and
// the optimizer waits for all of them: all of it is exposed, and the step
// grows by exactly the exposed difference.
std::vector<std::string> data_parallel(bool overlap, double slowdown = 1.0, double sm_cost = 0.0) {
  return {"topology.nodes=2", "hardware.node.gpus_per_node=4", "hardware.node.nics_per_node=4",
          "parallelism.pp=1", "parallelism.dp=8", "parallelism.zero_stage=0",
          "hardware.gpu.efficiency.communication_overhead_us=0",
          // 16-bit gradients: the reduction then fits behind the backward pass.
          "training.grad_reduce_dtype=bf16",
          std::string("training.overlap_grad_reduce=") + (overlap ? "true" : "false"),
          "hardware.gpu.efficiency.overlap_slowdown=" + std::to_string(slowdown),
          "hardware.gpu.efficiency.overlap_sm_cost=" + std::to_string(sm_cost)};
}

TEST(TrainingPhysics, DisablingDpOverlapExposesTheWholeReduction) {
  const RunResult on = run(data_parallel(true)), off = run(data_parallel(false));
  ASSERT_GT(off.collective_total_s, 0.0);
  // Off: the DP reduction is the only communication, and none of it hides.
  EXPECT_NEAR(off.collective_exposed_s, off.collective_total_s, 1e-9);
  // On: the same bytes move, most of it behind the backward pass.
  EXPECT_LT(on.collective_exposed_s, 0.6 * off.collective_exposed_s);
  // The step grows by the extra exposed communication, to the nanosecond.
  EXPECT_NEAR(off.step_time_s - on.step_time_s, off.collective_exposed_s - on.collective_exposed_s, 1e-9);
  EXPECT_DOUBLE_EQ(on.forward_s, off.forward_s);
}

// A sharded optimizer whose gradients are all-reduced (DeepSpeed's
// BF16_Optimizer): with nothing overlapped, the ZeRO 1 step pays the ZeRO 0
// all-reduce plus the parameter all-gather, and a ring all-reduce moves twice
// a reduce-scatter's bytes per GPU, so switching the ZeRO 1 reduction from
// reduce-scatter to all-reduce adds about half of ZeRO 0's all-reduce, and the
// step grows by exactly the added exposed time.
TEST(TrainingPhysics, AllReducedGradientsUnderZeroOneCostTheExtraHalfRing) {
  std::vector<std::string> zero0 = data_parallel(false);
  std::vector<std::string> scatter = zero0, all = zero0;
  scatter.push_back("parallelism.zero_stage=1");
  all.push_back("parallelism.zero_stage=1");
  all.push_back("training.grad_reduce_collective=all_reduce");
  const RunResult r0 = run(zero0), rs = run(scatter), ar = run(all);
  ASSERT_GT(r0.collective_exposed_s, 0.0);
  // The gradient all-reduce is ZeRO 0's own; what ZeRO 1 adds either way is the gather.
  const double gather = ar.collective_exposed_s - r0.collective_exposed_s;
  EXPECT_GT(gather, 0.0);
  const double reduce_scatter = rs.collective_exposed_s - gather;
  EXPECT_NEAR(reduce_scatter / r0.collective_exposed_s, 0.5, 0.05);
  EXPECT_NEAR(ar.step_time_s - rs.step_time_s, ar.collective_exposed_s - rs.collective_exposed_s, 1e-9);
  EXPECT_DOUBLE_EQ(ar.forward_s, rs.forward_s);
}

TEST(TrainingPhysics, OverlapSlowdownStretchesOnlyOverlappedCompute) {
  const RunResult on = run(data_parallel(true)), on_slow = run(data_parallel(true, 1.5));
  const RunResult off = run(data_parallel(false)), off_slow = run(data_parallel(false, 1.5));
  EXPECT_GT(on_slow.backward_s, on.backward_s);        // backward kernels ran beside the reduction
  EXPECT_DOUBLE_EQ(on_slow.forward_s, on.forward_s);   // nothing overlaps the forward
  EXPECT_DOUBLE_EQ(off_slow.step_time_s, off.step_time_s);  // nothing overlaps at all
}

// A kernel overlapped by a collective for half its length is slowed for
// exactly that half: D of work at rate 1/s while the collective runs, then at
// full speed. Work done by the collective's end T is T/s; the rest, D - T/s,
// runs at 1, so the kernel ends at T + D - T/s. Re-timing back and forth
// conserves the work to the picosecond.
TEST(TrainingPhysics, KernelOverlappedForHalfItsLengthIsSlowedForThatHalf) {
  using core::SimTime;
  const double D = 1e-3, s = 1.5;
  models::training::KernelProgress k;
  // The collective covers the first half of the kernel's wall time.
  const SimTime slowed_end = k.start(SimTime::zero(), D, 1 / s);
  EXPECT_EQ(slowed_end.ps, SimTime::from_seconds(D * s).ps);
  const SimTime T = SimTime::from_seconds(D * s / 2);  // half of the slowed kernel's length
  const std::uint32_t stale = k.token();
  const SimTime end = k.set_rate(T, 1.0);
  EXPECT_NE(k.token(), stale);
  EXPECT_NEAR(end.seconds(), T.seconds() + D - T.seconds() / s, 1e-12);  // D (1 + s) / 2
  EXPECT_NEAR(end.seconds(), 1.25e-3, 1e-12);
  // A collective over the second half instead: first half at full speed.
  models::training::KernelProgress k2;
  k2.start(SimTime::zero(), D, 1.0);
  EXPECT_NEAR(k2.set_rate(SimTime::from_seconds(D / 2), 1 / s).seconds(), D / 2 + s * D / 2, 1e-12);
  // No overlap: the plain duration; a rate change that is undone costs nothing.
  models::training::KernelProgress k3;
  k3.start(SimTime::zero(), D, 1.0);
  k3.set_rate(SimTime::from_seconds(D / 4), 1 / s);
  EXPECT_NEAR(k3.set_rate(SimTime::from_seconds(D / 4), 1.0).seconds(), D, 1e-12);
}

// In a run: a slowdown stretches the backward only by the part of its kernels
// that the DP reduction actually overlaps, so less than s times the backward.
TEST(TrainingPhysics, OverlapSlowdownIsChargedOnlyWhileCommunicationRuns) {
  const RunResult on = run(data_parallel(true)), on_slow = run(data_parallel(true, 1.5));
  const double stretch = on_slow.backward_s - on.backward_s;
  EXPECT_GT(stretch, 0.0);
  // Bounded by 0.5 x the reduction's length (it overlaps at most that much compute).
  EXPECT_LE(stretch, 0.5 * on.collective_total_s + 1e-9);
  EXPECT_LT(stretch, 0.5 * on.backward_s);
}

// NCCL runs one thread block per channel, so while the DP all-reduce runs the
// backward's kernels lose the SMs its channels hold. The DP group spans two
// servers of 4 NICs each; NCCL opens two channels per NIC: 8 channels of the
// A100's 108 SMs. That is exactly a fixed slowdown of 108 / (108 - 8), and
// with twice the SMs per channel, 108 / (108 - 16).
TEST(TrainingPhysics, NcclChannelsTakeTheirSmsFromOverlappedCompute) {
  const double sms = 108, channels = 8;
  const RunResult plain = run(data_parallel(true));
  const RunResult by_channels = run(data_parallel(true, 1.0, 1.0));
  const RunResult fixed = run(data_parallel(true, sms / (sms - channels)));
  EXPECT_GT(by_channels.backward_s, plain.backward_s);
  EXPECT_NEAR(by_channels.backward_s, fixed.backward_s, 1e-9);
  EXPECT_NEAR(by_channels.step_time_s, fixed.step_time_s, 1e-9);
  EXPECT_DOUBLE_EQ(by_channels.forward_s, plain.forward_s);  // nothing overlaps the forward
  // The report's figure: what the backward lost, exactly (the same kernels, slower).
  EXPECT_EQ(plain.overlap_stretch_s, 0.0);
  EXPECT_NEAR(by_channels.overlap_stretch_s, by_channels.backward_s - plain.backward_s, 1e-9);
  const RunResult doubled = run(data_parallel(true, 1.0, 2.0));
  const RunResult fixed_doubled = run(data_parallel(true, sms / (sms - 2 * channels)));
  EXPECT_NEAR(doubled.backward_s, fixed_doubled.backward_s, 1e-9);
  EXPECT_GT(doubled.backward_s, by_channels.backward_s);
}

// Under TP communication overlap the gathers that Transformer Engine's ring
// exchange streams into QKV and fc1 move on the copy engines: those GEMMs
// run as fast with NCCL's channels taking SMs (overlap_sm_cost 1) as without
// (0), to the picosecond, while the projection and fc2 beside their pipelined
// reduce-scatters (NCCL kernels) slow down.
TEST(TrainingPhysics, RingExchangeGathersTakeNoSmsFromTheirGemms) {
  using workload::OpKind;
  const auto recorded = [](double sm_cost) {
    RunOptions options;
    options.record.assign(4, true);
    const std::vector<std::string> o{"topology.nodes=1", "hardware.node.gpus_per_node=4", "hardware.node.nics_per_node=4",
                                     "parallelism.pp=1", "parallelism.dp=1", "parallelism.tp=4",
                                     "parallelism.sequence_parallel=true", "training.tp_comm_overlap=true",
                                     "training.global_batch_size=2", "model.layers=2",
                                     "hardware.gpu.efficiency.communication_overhead_us=0", "training.host_overhead_us=0",
                                     "hardware.gpu.efficiency.overlap_sm_cost=" + std::to_string(sm_cost)};
    return run_training(config::load_experiment(kExperiment, o), core::Communicator::world(), options);
  };
  const auto forward = [](const RunResult& r, OpKind kind) {
    std::int64_t ps = 0;
    for (const auto& op : r.local.ops)
      if (op.kind == static_cast<std::uint16_t>(kind) && op.phase == 0) ps += op.end_ps - op.start_ps;
    return ps;
  };
  const RunResult free = recorded(0.0), held = recorded(1.0);
  if (free.local.ops.empty()) return;  // this rank simulated no GPU
  for (const OpKind k : {OpKind::qkv_fwd, OpKind::mlp_fc1_fwd}) {
    ASSERT_GT(forward(free, k), 0) << workload::kind_name(k);
    EXPECT_EQ(forward(held, k), forward(free, k)) << workload::kind_name(k);
  }
  for (const OpKind k : {OpKind::attn_proj_fwd, OpKind::mlp_fc2_fwd}) {
    EXPECT_GT(forward(held, k), forward(free, k)) << workload::kind_name(k);
  }
}

// Kernels GPU `gpu` launches in a step: what its host issues (and, in
// `inner`, the kernels compiled code launches inside those calls).
std::int64_t host_issues(const ExperimentSpec& e, int gpu, std::int64_t* ops = nullptr, std::int64_t* inner = nullptr) {
  workload::WorkloadPlan plan(e);
  workload::GpuProgram program(plan, gpu);
  workload::Op op;
  std::int64_t launches = 0, count = 0, inside = 0;
  while (program.next(op)) {
    launches += op.launches;
    inside += op.inner_launches;
    ++count;
  }
  if (ops) *ops = count;
  if (inner) *inner = inside;
  return launches;
}

// simulation.partition: replicas blocks the servers in the order
// TrainingSetup::replica_order gives: by the first GPU's place in its
// pipeline stage, then by stage, so that each run of servers holds the same
// share of every stage (the servers that work at the same moments).
std::vector<std::int32_t> replica_order(std::vector<std::string> overrides) {
  const ExperimentSpec e = config::load_experiment(kExperiment, overrides);
  return TrainingSetup(e, built_in_workload(e)).replica_order();
}

TEST(TrainingSetupOrder, ReplicasOrderSpreadsEveryStageOverTheRuns) {
  // Four 8-GPU servers, two stages of 16 GPUs: servers 0, 1 hold stage 0.
  const std::vector<std::int32_t> two_per_stage{0, 2, 1, 3};
  EXPECT_EQ(replica_order({"topology.nodes=4", "parallelism.tp=1", "parallelism.pp=2", "parallelism.dp=16",
                           "training.global_batch_size=32"}),
            two_per_stage);
  EXPECT_EQ(replica_order({"topology.nodes=4", "parallelism.tp=8", "parallelism.pp=2", "parallelism.dp=2",
                           "training.global_batch_size=4"}),
            two_per_stage);
  // One server per stage: nothing runs beside anything else; stage order.
  const std::vector<std::int32_t> one_per_stage{0, 1, 2, 3};
  EXPECT_EQ(replica_order({"topology.nodes=4", "parallelism.tp=8", "parallelism.pp=4", "parallelism.dp=1"}),
            one_per_stage);
}

// One GPU, a tiny model, a host far slower than the GPU: every op waits for its
// issue, so the step is (ops on the GPU) x (host time per op), the GPU's own
// kernels hidden behind the host. The report names the host as the bottleneck.
TEST(TrainingPhysics, HostBoundTinyModelRunsAtTheIssueRate) {
  const std::vector<std::string> tiny = {"topology.nodes=1", "hardware.node.gpus_per_node=1",
                                         "hardware.node.nics_per_node=1", "parallelism.pp=1", "parallelism.dp=1",
                                         "model.layers=2", "model.hidden_size=256", "model.ffn_hidden_size=1024",
                                         "model.num_attention_heads=4", "model.num_kv_heads=4", "model.vocab_size=512",
                                         "training.global_batch_size=4", "training.seq_length=128"};
  const ExperimentSpec e = config::load_experiment(kExperiment, tiny);
  const std::int64_t ops = host_issues(e, 0);
  ASSERT_GT(ops, 50);
  for (const double issue_us : {200.0, 1000.0}) {
    auto o = tiny;
    o.push_back("training.host_overhead_us=" + std::to_string(issue_us));
    const RunResult r = run(o);
    const double expected = static_cast<double>(ops) * issue_us * 1e-6;
    EXPECT_NEAR(r.step_time_s, expected, 0.05 * expected) << "host " << issue_us << " us per op, " << ops << " ops";
    EXPECT_GT(r.host_bound_s, 0.5 * r.step_time_s);
    EXPECT_EQ(r.dominant_op_type, "host");
  }
  // With the host out of the way nothing waits for it.
  auto free_host = tiny;
  free_host.push_back("training.host_overhead_us=0");
  EXPECT_EQ(run(free_host).host_bound_s, 0.0);
}

// A tiny MoE model with expert parallelism on one two-GPU server (4 local
// experts per GPU): small enough for a slow host to bind every kernel.
std::vector<std::string> tiny_moe() {
  return {"topology.nodes=1", "hardware.node.gpus_per_node=2", "hardware.node.nics_per_node=2", "parallelism.pp=1",
          "parallelism.dp=2", "parallelism.ep=2", "model.moe.num_experts=8", "model.moe.top_k=2",
          "model.moe.expert_ffn_hidden_size=512", "model.layers=2", "model.hidden_size=256",
          "model.ffn_hidden_size=1024", "model.num_attention_heads=4", "model.num_kv_heads=4", "model.vocab_size=512",
          "training.global_batch_size=4", "training.seq_length=128"};
}

// The same on a tiny MoE model with expert parallelism: the host issues every
// kernel, one per local expert in each grouped GEMM and each of the routing's
// small kernels, so the host-bound step is the launches (not the ops) times
// the issue time; a slower host CPU (hardware.node.host_overhead_scale, e.g.
// a Grace host) stretches it by its factor.
TEST(TrainingPhysics, HostBoundMoeStepIsEveryKernelLaunchTimesTheIssueTime) {
  const std::vector<std::string> tiny = tiny_moe();
  std::int64_t ops = 0;
  const std::int64_t launches = host_issues(config::load_experiment(kExperiment, tiny), 0, &ops);
  ASSERT_GT(launches, ops + ops / 3);  // 4 local experts: launches the op count alone would miss
  const double issue_us = 500.0;
  for (const double scale : {1.0, 2.0}) {
    auto o = tiny;
    o.push_back("training.host_overhead_us=" + std::to_string(issue_us));
    o.push_back("hardware.node.host_overhead_scale=" + std::to_string(scale));
    const RunResult r = run(o);
    const double expected = static_cast<double>(launches) * issue_us * scale * 1e-6;
    EXPECT_NEAR(r.step_time_s, expected, 0.03 * expected) << launches << " launches, " << ops << " ops, x" << scale;
    EXPECT_EQ(r.dominant_op_type, "host");
  }
}

// fp8 under current (tensorwise) scaling: Transformer Engine casts each local
// expert's input in its own amax and cast kernels, launched by split_quantize's
// C++ loop inside one call. On the host-bound tiny MoE model the step is then
// the framework's launches x training.host_overhead_us plus those inner
// launches x training.host_inner_launch_us (never dearer than a launch).
TEST(TrainingPhysics, HostBoundFp8MoeStepPricesTeLoopLaunchesAtTheirOwnRate) {
  std::vector<std::string> tiny = tiny_moe();
  tiny.push_back("hardware=" + std::string(PF_SOURCE_ROOT) + "/configs/hardware/h100-sxm-80gb.yaml");  // fp8 peaks
  for (const char* o : {"hardware.node.gpus_per_node=2", "hardware.node.nics_per_node=2", "training.dtype=fp8",
                        "training.fp8_recipe=tensorwise", "training.host_overhead_us=500"})
    tiny.push_back(o);
  std::int64_t inner = 0;
  const std::int64_t launches = host_issues(config::load_experiment(kExperiment, tiny), 0, nullptr, &inner);
  ASSERT_GT(inner, launches / 10);  // 4 local experts, 2 kernels each per cast: 7 inner launches a cast
  for (const double inner_us : {0.0, 100.0, 500.0, 2000.0}) {
    auto o = tiny;
    o.push_back("training.host_inner_launch_us=" + std::to_string(inner_us));
    const RunResult r = run(o);
    const double expected = (static_cast<double>(launches) * 500.0 + inner * std::min(inner_us, 500.0)) * 1e-6;
    EXPECT_NEAR(r.step_time_s, expected, 0.03 * expected) << launches << " + " << inner << " inner at " << inner_us;
  }
}

// Launches GPU `gpu` issues in a step from modules captured in CUDA graphs
// (Op::graphed), and the kinds of those ops.
std::int64_t graphed_issues(const ExperimentSpec& e, int gpu, std::set<workload::OpKind>* kinds) {
  workload::WorkloadPlan plan(e);
  workload::GpuProgram program(plan, gpu);
  workload::Op op;
  std::int64_t launches = 0;
  while (program.next(op)) {
    if (!op.graphed) continue;
    launches += op.launches;
    kinds->insert(op.kind);
  }
  return launches;
}

// training.cuda_graph_scope: the kernels of the captured modules replay at
// the graph's per-kernel time (1.3 us), the rest are issued eagerly. On the
// host-bound tiny MoE model the step is then eager launches x the issue time
// plus graphed launches x the graph's. moe_router captures the norm, router
// and routing forward and backward, moe_preprocess the token counts and
// their all-gather, attn the attention block; never the experts.
TEST(TrainingPhysics, GraphedModulesIssueAtTheGraphRate) {
  using workload::OpKind;
  std::vector<std::string> tiny = tiny_moe();
  tiny.push_back("training.host_overhead_us=500");
  const std::int64_t launches = host_issues(config::load_experiment(kExperiment, tiny), 0);
  const RunResult eager = run(tiny);
  tiny.push_back("training.cuda_graph_scope=[attn, moe_router, moe_preprocess]");
  const ExperimentSpec e = config::load_experiment(kExperiment, tiny);
  std::set<OpKind> kinds;
  const std::int64_t graphed = graphed_issues(e, 0, &kinds);
  ASSERT_EQ(host_issues(e, 0), launches);  // the same kernels, issued differently
  ASSERT_GT(graphed, launches / 4);
  for (OpKind k : {OpKind::attention_fwd, OpKind::attention_bwd, OpKind::qkv_fwd, OpKind::router_fwd,
                   OpKind::moe_route_fwd, OpKind::moe_route_bwd, OpKind::router_wgrad, OpKind::ep_count_gather})
    EXPECT_TRUE(kinds.count(k)) << workload::kind_name(k);
  for (OpKind k : {OpKind::expert_fc1_fwd, OpKind::expert_fc2_dgrad, OpKind::ep_dispatch, OpKind::ep_combine,
                   OpKind::moe_permute_fwd})
    EXPECT_FALSE(kinds.count(k)) << workload::kind_name(k);
  const RunResult graphs = run(tiny);
  const double expected = (static_cast<double>(launches - graphed) * 500.0 + graphed * 1.3) * 1e-6;
  EXPECT_NEAR(graphs.step_time_s, expected, 0.03 * expected) << graphed << " of " << launches << " launches graphed";
  EXPECT_NEAR(eager.step_time_s - graphs.step_time_s, graphed * (500.0 - 1.3) * 1e-6,
              0.03 * graphed * 500.0 * 1e-6);
  // moe_router alone leaves the counts eager; a dense layer's mlp scope has no MoE to capture.
  tiny.back() = "training.cuda_graph_scope=[moe_router]";
  std::set<OpKind> router_only;
  EXPECT_LT(graphed_issues(config::load_experiment(kExperiment, tiny), 0, &router_only), graphed);
  EXPECT_FALSE(router_only.count(OpKind::ep_count_gather));
  EXPECT_FALSE(router_only.count(OpKind::attention_fwd));
  tiny.back() = "training.cuda_graph_scope=[mlp]";
  std::set<OpKind> none;
  EXPECT_EQ(graphed_issues(config::load_experiment(kExperiment, tiny), 0, &none), 0);
}

// simulation.inter_server: analytical times the collectives of groups that
// span servers in closed form from their last member's join
// (cross_server_collective.h); on the analytical network's idle paths that
// is what their messages take: a MoE model's expert-parallel all-to-alls
// over two servers (NVLink and NIC parts side by side, within 10 %), and a dense model's
// data-parallel reduce-scatters and all-gathers and its step. What the
// closed form leaves out shows in the MoE step: two groups' collectives at
// once on one GPU port share it in the messages' model, not in closed form.
TEST(TrainingPhysics, CrossServerClosedFormMatchesTheMessages) {
  using workload::OpKind;
  // The host off: this small model is bound by its host at the default issue
  // time, and an all-to-all op's duration then holds the wait for members the
  // host issued later, a wait the closed form and the messages book apart
  // (at 41 us per kernel: combines -11.6 %, the same step to 0.1 %). The comparison is
  // of the network's time.
  const std::vector<std::string> dense{"topology.nodes=2", "parallelism.pp=1", "parallelism.tp=2",
                                       "parallelism.dp=8", "model.layers=4", "training.global_batch_size=16",
                                       "simulation.network=analytical", "training.host_overhead_us=0"};
  std::vector<std::string> moe = dense;
  for (const char* o : {"parallelism.sequence_parallel=true", "parallelism.ep=8", "model.moe.num_experts=8",
                        "model.moe.top_k=2"})
    moe.push_back(o);
  const auto recorded = [](std::vector<std::string> overrides, const char* inter_server) {
    overrides.push_back(std::string("simulation.inter_server=") + inter_server);
    RunOptions options;
    options.record.assign(16, true);
    return run_training(config::load_experiment(kExperiment, overrides), core::Communicator::world(), options);
  };
  // Summed over this rank's GPUs: the same GPUs in both runs.
  const auto total = [](const RunResult& r, OpKind kind) {
    double s = 0;
    for (const auto& op : r.local.ops)
      if (op.kind == static_cast<std::uint16_t>(kind)) s += static_cast<double>(op.end_ps - op.start_ps) * 1e-12;
    return s;
  };
  const auto compare = [&](const RunResult& closed, const RunResult& messages, OpKind kind, double tolerance) {
    if (messages.local.ops.empty()) return;  // this rank simulated no GPU
    const double m = total(messages, kind);
    ASSERT_GT(m, 0) << workload::kind_name(kind);
    EXPECT_NEAR(total(closed, kind) / m, 1.0, tolerance) << workload::kind_name(kind);
  };
  const RunResult moe_closed = recorded(moe, "analytical"), moe_messages = recorded(moe, "packet");
  // EP 8 spans both servers. Measured 2026-12-06: the closed form's
  // dispatches +1.4 %, combines -3.2 % against the messages (the combines
  // that queue behind another collective on the GPU's port run longer as
  // messages). Before a member's all-to-all waited for its own sends to
  // leave, members whose peers all sent to them first finished in half the
  // time (+7.4 % / +5.9 % here, +15 % with 2.5 us more per-call overhead).
  compare(moe_closed, moe_messages, OpKind::ep_dispatch, 0.05);
  compare(moe_closed, moe_messages, OpKind::ep_combine, 0.05);
  EXPECT_LT(moe_closed.step_time_s, moe_messages.step_time_s);
  EXPECT_GT(moe_closed.step_time_s, 0.9 * moe_messages.step_time_s);
  const RunResult dense_closed = recorded(dense, "analytical"), dense_messages = recorded(dense, "packet");
  compare(dense_closed, dense_messages, OpKind::dp_grad_reduce_scatter, 0.01);
  compare(dense_closed, dense_messages, OpKind::dp_param_all_gather, 0.01);
  EXPECT_NEAR(dense_closed.step_time_s / dense_messages.step_time_s, 1.0, 0.005);
}

// Replica folding's classes and its refusals (replica_folding.h): on one
// switch every replica is alike and folds onto replica 0, position by
// position, its GPUs standing for all; a GPU fault keeps the replicas of its
// server unfolded; link faults, one replica, the packet network and
// message-level groups across replicas turn it off with the reason.
TEST(ReplicaFolding, FoldsAlikeReplicasOntoTheFirstAndRefusesWhereItWouldNotBeExact) {
  const std::vector<std::string> base{"topology.nodes=4",      "parallelism.tp=2",
                                      "parallelism.pp=2",      "parallelism.dp=8",
                                      "training.global_batch_size=16", "simulation.network=analytical"};
  const auto folding = [&](std::vector<std::string> more) {
    std::vector<std::string> o = base;
    o.insert(o.end(), more.begin(), more.end());
    const ExperimentSpec e = config::load_experiment(kExperiment, o);
    models::training::TrainingSetup setup(e, models::training::built_in_workload(e));
    return setup.folding();
  };
  const auto f = folding({});
  ASSERT_TRUE(f.active) << f.reason;
  EXPECT_EQ(f.classes, 1);
  EXPECT_EQ(f.simulated_gpus(), 4);
  const workload::RankLayout layout(config::load_experiment(kExperiment, base).parallelism);
  int weights = 0;
  for (int g = 0; g < 32; ++g) {
    workload::Coords c = layout.coords(g);
    c.dp = 0;
    EXPECT_EQ(f.source[static_cast<std::size_t>(g)], layout.rank(c)) << g;
    weights += f.weight[static_cast<std::size_t>(g)];
  }
  EXPECT_EQ(weights, 32);
  const auto off = [&](std::vector<std::string> more, const std::string& why) {
    const auto r = folding(std::move(more));
    EXPECT_FALSE(r.active) << why;
    EXPECT_NE(r.reason.find(why), std::string::npos) << r.reason;
    EXPECT_EQ(r.simulated_gpus(), 32);
  };
  off({"simulation.fold=off"}, "simulation.fold: off");
  off({"simulation.network=packet"}, "packet network");
  off({"simulation.inter_server=packet"}, "message by message");
  off({"faults=[{link: \"leaf0->spine0\", bandwidth_factor: 0.5}]", "topology.kind=rail_optimized",
       "topology.nodes_per_leaf=2"},
      "link and switch faults");
  // A straggler's server (GPUs 0-7: replicas 0-3 of stage 0) keeps those replicas unfolded; the rest fold.
  const auto straggler = folding({"faults=[{gpus: \"3\", compute_slowdown: 1.2}]"});
  ASSERT_TRUE(straggler.active) << straggler.reason;
  EXPECT_EQ(straggler.classes, 5);
  for (int g : {0, 3, 7, 16, 23}) EXPECT_TRUE(straggler.simulated(g)) << g;
  EXPECT_FALSE(straggler.simulated(10));  // replica 5 folds onto replica 4, the first the fault leaves alone
  EXPECT_EQ(straggler.source[10], 8);
  const auto one = folding({"parallelism.dp=1", "parallelism.pp=16"});
  EXPECT_FALSE(one.active);
  EXPECT_NE(one.reason.find("one data-parallel replica"), std::string::npos) << one.reason;
}

// The flex dispatcher (DeepEP) sends a token to another server once however
// many of its experts live there: with EP over two servers the token
// all-to-alls, bound by the NICs, shrink to remote_dedup_share of the plain
// all-to-all's inter-server bytes; with EP inside one server nothing changes.
TEST(TrainingPhysics, FlexDispatchCrossesToAServerOncePerToken) {
  auto moe = [](int nodes, const char* dispatcher) {
    return std::vector<std::string>{"topology.nodes=" + std::to_string(nodes), "parallelism.pp=1",
                                    "parallelism.dp=" + std::to_string(8 * nodes),
                                    "parallelism.ep=" + std::to_string(8 * nodes), "model.moe.num_experts=16",
                                    "model.moe.top_k=4", "model.moe.expert_ffn_hidden_size=1024", "model.layers=2",
                                    "training.global_batch_size=" + std::to_string(8 * nodes),
                                    "training.seq_length=4096", "training.host_overhead_us=0",
                                    "simulation.network=analytical", "simulation.inter_server=packet",
                                    std::string("training.moe_token_dispatcher=") + dispatcher};
  };
  const double across = kind_seconds(run(moe(2, "flex")), "ep_dispatch") /
                        kind_seconds(run(moe(2, "alltoall")), "ep_dispatch");
  const double share = collective::remote_dedup_share(4, 16, 16, 8);  // 0.48
  EXPECT_GT(across, share);          // the NVLink part does not shrink
  EXPECT_LT(across, share + 0.1);    // but the NIC part dominates
  const double inside = kind_seconds(run(moe(1, "flex")), "ep_dispatch") /
                        kind_seconds(run(moe(1, "alltoall")), "ep_dispatch");
  EXPECT_NEAR(inside, 1.0, 0.02);
}

// The run at `issue_us` of host time per kernel, and the same with `off` (a
// host sync turned off) among its overrides.
std::pair<RunResult, RunResult> with_and_without(std::vector<std::string> overrides, double issue_us,
                                                 const std::string& off) {
  overrides.push_back("training.host_overhead_us=" + std::to_string(issue_us));
  const RunResult with = run(overrides);
  overrides.push_back(off);
  return {with, run(overrides)};
}

// MoE with expert parallelism on a host that keeps ahead of the GPU: the host
// still waits for the compute stream before each forward token dispatch
// (Megatron's dropless all-to-all dispatcher reads the split sizes on the
// host), then spends one issue on the dispatch while the GPU, whose next
// kernel needs the dispatched tokens, waits. Each forward dispatch (layers x
// micro-batches) adds exactly one host issue to the step.
TEST(TrainingPhysics, MoeDispatchSyncCostsOneIssuePerForwardDispatch) {
  const int layers = 4, microbatches = 4;
  const std::vector<std::string> moe = {"topology.nodes=1", "hardware.node.gpus_per_node=2",
                                        "hardware.node.nics_per_node=2", "parallelism.pp=1", "parallelism.dp=2",
                                        "parallelism.ep=2", "model.moe.num_experts=4", "model.moe.top_k=2",
                                        "model.moe.expert_ffn_hidden_size=4096", "model.layers=" + std::to_string(layers),
                                        "training.global_batch_size=" + std::to_string(2 * microbatches),
                                        "training.seq_length=4096", "training.host_sync_on_loss=false"};
  for (const double issue_us : {10.0, 20.0}) {
    const auto [synced, free] = with_and_without(moe, issue_us, "training.host_sync_on_moe_dispatch=false");
    ASSERT_LT(free.host_bound_s, 1e-4);  // the host keeps ahead without the sync
    EXPECT_NEAR(synced.step_time_s - free.step_time_s, layers * microbatches * issue_us * 1e-6, 1e-9)
        << issue_us << " us per issue";
  }
}

// GPT-OSS's quick-GEGLU experts on a host that keeps ahead of the GPU:
// Megatron-Core's fused activation copies its linear offset to the GPU with a
// blocking copy, so the host waits for the compute stream before each
// forward activation, then issues the activation (the copy and the kernel:
// two issues) while the GPU, whose next kernel is that activation, waits.
// Each forward activation (layers x micro-batches) adds exactly two issues.
TEST(TrainingPhysics, QuickGegluSyncCostsTwoIssuesPerForwardActivation) {
  const int layers = 4, microbatches = 4;
  const std::vector<std::string> moe = {"topology.nodes=1", "hardware.node.gpus_per_node=2",
                                        "hardware.node.nics_per_node=2", "parallelism.pp=1", "parallelism.dp=2",
                                        "parallelism.ep=2", "model.moe.num_experts=4", "model.moe.top_k=2",
                                        "model.moe.expert_ffn_hidden_size=4096", "model.activation=quick_geglu",
                                        "model.activation_clamp=7", "model.layers=" + std::to_string(layers),
                                        "training.global_batch_size=" + std::to_string(2 * microbatches),
                                        "training.seq_length=4096", "training.host_sync_on_loss=false",
                                        "training.host_sync_on_moe_dispatch=false"};
  for (const double issue_us : {10.0, 20.0}) {
    const auto [synced, free] = with_and_without(moe, issue_us, "training.host_sync_on_quick_geglu=false");
    ASSERT_LT(free.host_bound_s, 1e-4);  // the host keeps ahead without the sync
    EXPECT_NEAR(synced.step_time_s - free.step_time_s, layers * microbatches * 2 * issue_us * 1e-6, 1e-9)
        << issue_us << " us per issue";
  }
  // The sync follows the activation, not the model: a SwiGLU model has none to make.
  auto swiglu = moe;
  swiglu.push_back("model.activation=swiglu");  // the later override wins
  const auto [swiglu_synced, swiglu_free] = with_and_without(swiglu, 10.0, "training.host_sync_on_quick_geglu=false");
  EXPECT_EQ(swiglu_synced.step_time_s, swiglu_free.step_time_s);
  // Nor does a CUDA graph's replay of the MoE layer: the copy ran once, at capture.
  auto graphed = moe;
  graphed.push_back("training.cuda_graph_scope=[moe]");
  const auto [graphed_synced, graphed_free] = with_and_without(graphed, 10.0, "training.host_sync_on_quick_geglu=false");
  EXPECT_EQ(graphed_synced.step_time_s, graphed_free.step_time_s);
}

// training.pp_send_wait on four pipeline stages whose sends are slow (2 GB/s
// NVLink: a micro-batch's 8 MiB of activations takes 4 ms or more): waiting
// for every send before the next kernel (DeepSpeed, Megatron-Core's
// non-interleaved 1F1B) lengthens the step by more than a send and by less
// than every send of the binding stage; a wait deferred to the next send of
// the same direction costs nothing while a send is shorter than a step; with
// NVLink's own rate the sends barely matter.
TEST(TrainingPhysics, BlockingPipelineSendsHoldTheSendersNextKernel) {
  const int microbatches = 8;
  auto with = [&](const char* wait, const char* nvlink_gbps) {
    std::vector<std::string> o = pipeline(microbatches);
    o.push_back(std::string("training.pp_send_wait=") + wait);
    o.push_back(std::string("hardware.node.nvlink_bandwidth_gbps=") + nvlink_gbps);
    return run(o).step_time_s;
  };
  const double send_bytes = 1024.0 * 4096 * 2;  // small-pipeline: 1,024 tokens x hidden 4,096 (pipeline()) x bf16
  const double slowest_send_s = send_bytes / (2e9 * 0.5);  // at no less than half the 2 GB/s line rate
  const double background = with("background", "2"), blocking = with("blocking", "2");
  EXPECT_GT(blocking, background + send_bytes / 2e9);
  EXPECT_LT(blocking, background + 2.0 * microbatches * slowest_send_s);
  EXPECT_NEAR(with("deferred", "2"), background, 1e-12);
  const double fast_background = with("background", "300"), fast_blocking = with("blocking", "300");
  EXPECT_GE(fast_blocking, fast_background);
  EXPECT_LT(fast_blocking, 1.005 * fast_background);
  std::printf("pp_send_wait: background %.3f ms, blocking %.3f ms (sends >= %.3f ms); at 300 GB/s %.3f / %.3f ms\n",
              background * 1e3, blocking * 1e3, send_bytes / 2e9 * 1e3, fast_background * 1e3, fast_blocking * 1e3);
}

// Megatron-Core's gradient-accumulation fusion points the linear layers'
// weight-gradient GEMMs at the main gradients: each reads and writes its
// output at the main gradients' width (fp32 by default, bf16 with
// grad_reduce_dtype bf16). The router's plain parameter, the dgrads and the
// forward GEMMs do not; without the fusion (add, cast_add) nothing does. An
// expert's wgrad with few routed tokens is then bound by that traffic.
TEST(TrainingPhysics, FusedWeightGradientsAccumulateIntoTheMainGradients) {
  const std::vector<std::string> moe = {"topology.nodes=1", "parallelism.pp=1", "parallelism.dp=8", "parallelism.ep=8",
                                        "model.moe.num_experts=128", "model.moe.top_k=2", "model.layers=2",
                                        "model.moe.expert_ffn_hidden_size=4096", "training.global_batch_size=8",
                                        "training.seq_length=1024"};
  auto first_of = [](const ExperimentSpec& e, workload::OpKind kind) {
    workload::WorkloadPlan plan(e);
    workload::GpuProgram program(plan, 0);
    workload::Op op;
    while (program.next(op))
      if (op.kind == kind) return op;
    ADD_FAILURE() << "no " << workload::kind_name(kind);
    return op;
  };
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> o = moe;
    o.insert(o.end(), extra.begin(), extra.end());
    return config::load_experiment(kExperiment, o);
  };
  const ExperimentSpec fp32 = with({}), bf16 = with({"training.grad_reduce_dtype=bf16"}),
                       unfused = with({"training.main_grad_accumulation=add"});
  using workload::OpKind;
  for (const OpKind k : {OpKind::qkv_wgrad, OpKind::attn_proj_wgrad, OpKind::expert_fc1_wgrad, OpKind::expert_fc2_wgrad}) {
    const workload::Op op = first_of(fp32, k);
    EXPECT_EQ(OpPricer(fp32).kernel(op).gemm.accumulate_bytes, 4) << workload::kind_name(k);
    EXPECT_EQ(OpPricer(bf16).kernel(op).gemm.accumulate_bytes, 2) << workload::kind_name(k);
    EXPECT_EQ(OpPricer(unfused).kernel(op).gemm.accumulate_bytes, 0) << workload::kind_name(k);
  }
  for (const OpKind k : {OpKind::router_wgrad, OpKind::expert_fc1_dgrad, OpKind::expert_fc1_fwd, OpKind::qkv_fwd})
    EXPECT_EQ(OpPricer(fp32).kernel(first_of(fp32, k)).gemm.accumulate_bytes, 0) << workload::kind_name(k);
  // 1,024 tokens x top 2 over 16 local experts: 128 rows per expert; A100's
  // ridge is far above the wgrad's 2 x 128 / 8 flop per output byte.
  const workload::Op wgrad = first_of(fp32, OpKind::expert_fc1_wgrad);
  const double fused_s = OpPricer(fp32).price(wgrad).seconds, plain_s = OpPricer(unfused).price(wgrad).seconds;
  const ComputeOp k = OpPricer(fp32).kernel(wgrad);
  const double output = static_cast<double>(k.gemm.batch * k.gemm.m * k.gemm.n);
  const double stream = fp32.hardware.gpu.memory_bandwidth_gbps * 1e9 * fp32.hardware.gpu.gemm_model.memory_efficiency;
  const double inputs = 2.0 * static_cast<double>(k.gemm.batch * (k.gemm.m * k.gemm.k + k.gemm.k * k.gemm.n));
  const double floor_s = (inputs + 8.0 * output) / stream + fp32.hardware.gpu.gemm_model.fixed_us * 1e-6;
  EXPECT_NEAR(fused_s, floor_s * OpPricer(fp32).slowest_gpu_factor(), 1e-3 * fused_s);
  EXPECT_GT(fused_s, 1.5 * plain_s);
}

// Combined 1F1B (training.overlap_moe_expert_parallel_comm) on a MoE model
// whose expert parallelism spans two servers, so the all-to-alls are slow and
// exposed. In the steady state one micro-batch's all-to-alls run beside the
// other's compute: the step shortens by no more than the exposed
// communication the plain schedule had, the all-to-alls themselves take as
// long, and with one micro-batch (no steady state) the order is the plain one.
TEST(TrainingPhysics, CombinedOneFOneBHidesAllToAllsBehindTheOtherMicroBatch) {
  auto moe = [](int microbatches, bool overlap, bool delay = true) {
    return std::vector<std::string>{"topology.nodes=2", "parallelism.pp=1", "parallelism.dp=16", "parallelism.ep=16",
                                    "model.moe.num_experts=16", "model.moe.top_k=4",
                                    "model.moe.expert_ffn_hidden_size=2048", "model.layers=4",
                                    "training.global_batch_size=" + std::to_string(16 * microbatches),
                                    "training.seq_length=4096", "training.host_overhead_us=0",
                                    "training.host_sync_on_moe_dispatch=false", "training.host_sync_on_loss=false",
                                    "simulation.network=analytical",
                                    std::string("training.overlap_moe_expert_parallel_comm=") + (overlap ? "true" : "false"),
                                    std::string("training.delay_wgrad_compute=") + (overlap && delay ? "true" : "false")};
  };
  const RunResult plain = run(moe(4, false)), combined = run(moe(4, true));
  ASSERT_GT(plain.collective_exposed_s, 0.2 * plain.step_time_s);  // the all-to-alls are exposed
  const double saved = plain.step_time_s - combined.step_time_s;
  EXPECT_GT(saved, 0.25 * plain.collective_exposed_s);
  EXPECT_LT(saved, plain.collective_exposed_s);
  EXPECT_NEAR(kind_seconds(combined, "ep_dispatch"), kind_seconds(plain, "ep_dispatch"),
              1e-6 * kind_seconds(plain, "ep_dispatch"));
  // (Delayed weight gradients alone reorder the backward; without them one
  // micro-batch runs exactly as before.)
  const RunResult one_plain = run(moe(1, false)), one_combined = run(moe(1, true, false));
  EXPECT_EQ(one_combined.step_time_s, one_plain.step_time_s);
}

}  // namespace
}  // namespace pf::models::training

namespace pf::models::training {
namespace {

// Tensor parallelism inside each server with sequence parallelism: the
// closed-form server collectives against the same rings simulated message by
// message. TP fills each server and the pipeline runs across servers, so
// nothing else uses the NVLink ports and the two must agree. (With DP or PP
// peers inside a server their traffic shares the ports and the closed form is
// optimistic: 2% on tp 4 x dp 2 in a server.)
TEST(TrainingPhysics, ServerCollectivesInClosedFormMatchTheMessageLevelRing) {
  std::vector<std::string> tp = {"topology.nodes=2", "parallelism.tp=8", "parallelism.pp=2", "parallelism.dp=1",
                                 "parallelism.sequence_parallel=true"};
  auto packet = tp;
  packet.push_back("simulation.intra_server=packet");
  const RunResult a = run(tp), p = run(packet);
  ASSERT_GT(p.collective_total_s, 0.0);
  EXPECT_NEAR(a.step_time_s, p.step_time_s, 0.01 * p.step_time_s);
  EXPECT_NEAR(a.collective_exposed_s, p.collective_exposed_s, 0.01 * p.collective_exposed_s);
  EXPECT_LT(a.simulation.events, p.simulation.events);
}

}  // namespace
}  // namespace pf::models::training

namespace pf::models::training {
namespace {

// The registry's model and network figures are sums over every GPU and link,
// whichever rank simulated them: the same on 1, 2 and 4 ranks as on one, and
// they count what the run did (a 4-stage pipeline has p2p ops, every GPU
// runs compute, the packet network carries bytes on its links).
TEST(TrainingFigures, ModelAndNetworkFiguresDoNotDependOnTheRankCount) {
  std::vector<std::string> o = {"topology.nodes=2", "parallelism.dp=4", "simulation.network=packet"};
  const ExperimentSpec e = config::load_experiment(kExperiment, o);
  const RunResult world = run::run_training(e, core::Communicator::world(), run::RunOptions{});
  const RunResult self = run::run_training(e, core::Communicator::self(), run::RunOptions{});
  for (const char* key : {"training.compute_ops", "training.collective_ops", "training.p2p_ops", "network.link_bytes",
                          "network.link_chunks", "network.peak_link_queue_bytes"}) {
    const core::Statistics::Figure* a = world.figures.find(key);
    const core::Statistics::Figure* b = self.figures.find(key);
    ASSERT_NE(a, nullptr) << key;
    ASSERT_NE(b, nullptr) << key;
    EXPECT_EQ(std::get<std::int64_t>(a->value), std::get<std::int64_t>(b->value)) << key;
    EXPECT_GT(std::get<std::int64_t>(a->value), 0) << key;
  }
  // The engine's own figures are per rank: one rank sends nothing remote.
  EXPECT_EQ(std::get<std::int64_t>(self.figures.find("simulation.remote_events")->value), 0);
}

}  // namespace
}  // namespace pf::models::training
