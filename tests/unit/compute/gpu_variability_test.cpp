// The expected slowest GPU of a job (models/compute/gpu_variability.h).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <tuple>

#include "models/compute/gpu_variability.h"

namespace pf::models {
namespace {

// Closed forms: E[max of 2] = 1 / sqrt(pi), E[max of 3] = 3 / (2 sqrt(pi)).
TEST(GpuVariability, ExpectedMaximumMatchesTheClosedForms) {
  EXPECT_EQ(expected_max_standard_normal(1), 0);
  EXPECT_NEAR(expected_max_standard_normal(2), 1 / std::sqrt(std::numbers::pi), 1e-9);
  EXPECT_NEAR(expected_max_standard_normal(3), 1.5 / std::sqrt(std::numbers::pi), 1e-9);
}

// Against a Monte Carlo estimate, and it only grows with the job.
TEST(GpuVariability, ExpectedMaximumAgreesWithSamplingAndGrowsWithTheJob) {
  std::mt19937_64 rng(7);
  std::normal_distribution<double> z;
  for (int n : {8, 64, 512}) {
    double sum = 0;
    const int trials = 4000;
    for (int t = 0; t < trials; ++t) {
      double m = -1e9;
      for (int i = 0; i < n; ++i) m = std::max(m, z(rng));
      sum += m;
    }
    EXPECT_NEAR(expected_max_standard_normal(n), sum / trials, 0.02) << n << " GPUs";
  }
  double previous = 0;
  for (int n = 2; n <= 1 << 16; n *= 2) {
    const double e = expected_max_standard_normal(n);
    EXPECT_GT(e, previous);
    previous = e;
  }
  EXPECT_NEAR(expected_max_standard_normal(8), 1.4236, 1e-4);
}

TEST(GpuVariability, FactorIsOneWithoutSpreadOrWithOneGpu) {
  EXPECT_EQ(slowest_gpu_factor(0, 4096), 1);
  EXPECT_EQ(slowest_gpu_factor(0.012, 1), 1);
  EXPECT_NEAR(slowest_gpu_factor(0.012, 2), 1 + 0.012 / std::sqrt(std::numbers::pi), 1e-12);
}

// Fluctuation within the lockstep group: the whole job in lockstep is the
// sum of two independent normals, sigma_part and sigma_fluct added in
// quadrature; no GPU in lockstep leaves the part-to-part term alone; the
// factor only grows with either sigma or the group.
TEST(GpuVariability, FluctuationAddsInQuadratureOverTheLockstepGroup) {
  const double e512 = expected_max_standard_normal(512);
  EXPECT_NEAR(slowest_gpu_factor(0.012, 512, 0.015, 512), 1 + std::sqrt(0.012 * 0.012 + 0.015 * 0.015) * e512, 1e-12);
  EXPECT_EQ(slowest_gpu_factor(0.012, 512, 0.015, 1), slowest_gpu_factor(0.012, 512));
  EXPECT_EQ(slowest_gpu_factor(0.012, 512, 0, 512), 1 + 0.012 * e512);
  EXPECT_NEAR(slowest_gpu_factor(0, 512, 0.015, 8), 1 + 0.015 * expected_max_standard_normal(8), 1e-12);
  double previous = 1;
  for (int lockstep = 1; lockstep <= 512; lockstep *= 2) {
    const double f = slowest_gpu_factor(0.012, 512, 0.015, lockstep);
    EXPECT_GE(f, previous) << lockstep;
    previous = f;
  }
  EXPECT_GT(slowest_gpu_factor(0.012, 512, 0.02, 64), slowest_gpu_factor(0.012, 512, 0.015, 64));
}

ParallelismSpec plan(int tp, int pp, int dp, int cp = 1, int ep = 1, int expert_tp = 0) {
  ParallelismSpec p;
  std::tie(p.tp, p.pp, p.dp, p.cp, p.ep, p.expert_tp) = std::tie(tp, pp, dp, cp, ep, expert_tp);
  return p;
}

// Who waits for whom within a layer or a micro-batch.
TEST(GpuVariability, LockstepGroupIsTheModelParallelPeers) {
  EXPECT_EQ(lockstep_gpus(plan(8, 6, 48), 2304, false), 48);       // TP 8 x PP 6; DP replicas meet once a step
  EXPECT_EQ(lockstep_gpus(plan(1, 1, 512), 512, false), 1);         // plain data parallelism
  EXPECT_EQ(lockstep_gpus(plan(1, 1, 512), 512, true), 512);        // replicas gathering every layer from all
  EXPECT_EQ(lockstep_gpus(plan(2, 4, 8, 2), 128, false), 2 * 2 * 4);  // TP x CP per stage, times the stages
  EXPECT_EQ(lockstep_gpus(plan(2, 8, 16, 1, 4), 256, false), 2 * 4 * 8);  // EP strides over 4 TP groups (expert_tp = tp)
  EXPECT_EQ(lockstep_gpus(plan(4, 8, 8, 1, 8, 1), 256, false), 8 * 8);   // folding: EP 8 over consecutive ranks
  EXPECT_EQ(lockstep_gpus(plan(8, 1, 8, 1, 4, 1), 64, false), 8);   // folding: EP 4 inside one TP group
  EXPECT_EQ(lockstep_gpus(plan(8, 4, 1), 16, false), 16);           // never more than the job
}

// When the replicas gather each layer's parameters from one another.
TEST(GpuVariability, ReplicasGatherLayersUnderZero3OrTheirOnlyMicroBatch) {
  ExperimentSpec e;
  e.parallelism = plan(1, 1, 64);
  e.training.global_batch_size = 64 * 4;  // four micro-batches of one
  e.training.micro_batch_size = 1;
  e.training.overlap_param_gather = true;
  for (int zero : {0, 1, 2}) {
    e.parallelism.zero_stage = zero;
    EXPECT_FALSE(replicas_gather_layers(e)) << zero;  // the first of four forwards only; the step averages it out
  }
  e.parallelism.zero_stage = 3;
  EXPECT_TRUE(replicas_gather_layers(e));
  e.training.micro_batch_size = 4;  // now one micro-batch per step
  for (int zero : {1, 2}) {
    e.parallelism.zero_stage = zero;
    EXPECT_TRUE(replicas_gather_layers(e)) << zero;
  }
  e.training.overlap_param_gather = false;  // gathered after the optimizer, all at once
  EXPECT_FALSE(replicas_gather_layers(e));
  e.parallelism.zero_stage = 0;
  e.training.overlap_param_gather = true;
  EXPECT_FALSE(replicas_gather_layers(e));  // nothing sharded, nothing gathered
}

// fp8 delayed scaling all-reduces the amaxes over the data-parallel replicas
// at every forward (Megatron-Core's amax reduction group): the whole job waits
// for its slowest GPU every micro-batch. Current scaling, MXFP8, 16-bit
// training and a single replica do not.
TEST(GpuVariability, DelayedScalingKeepsTheReplicasInLockstep) {
  ExperimentSpec e;
  e.parallelism = plan(2, 1, 32);  // TP 2, 32 replicas: 64 GPUs
  e.training.global_batch_size = 32 * 8;
  e.training.micro_batch_size = 1;
  e.training.dtype = Dtype::fp8;
  e.training.fp8_recipe = Fp8Recipe::delayed;
  EXPECT_TRUE(replicas_reduce_amax(e));
  EXPECT_TRUE(replicas_in_lockstep(e));
  EXPECT_FALSE(replicas_gather_layers(e));
  EXPECT_EQ(lockstep_gpus(e.parallelism, 64, replicas_in_lockstep(e)), 64);
  for (const Fp8Recipe r : {Fp8Recipe::tensorwise, Fp8Recipe::mxfp8, Fp8Recipe::blockwise}) {
    e.training.fp8_recipe = r;
    EXPECT_FALSE(replicas_in_lockstep(e)) << static_cast<int>(r);
  }
  e.training.fp8_recipe = Fp8Recipe::delayed;
  e.training.dtype = Dtype::bf16;
  EXPECT_FALSE(replicas_in_lockstep(e));
  e.training.dtype = Dtype::fp8;
  e.parallelism = plan(2, 1, 1);
  EXPECT_FALSE(replicas_reduce_amax(e));  // one replica: nothing to meet
}

// Megatron-LM to core_r0.10 all-reduces each micro-batch's reported loss over
// the data-parallel group and the backward waits for it: the replicas meet at
// every micro-batch, as under delayed scaling, whatever the precision.
TEST(GpuVariability, AMicroBatchLossAllReduceKeepsTheReplicasInLockstep) {
  ExperimentSpec e;
  e.parallelism = plan(2, 1, 32);  // TP 2, 32 replicas: 64 GPUs
  e.training.global_batch_size = 32 * 8;
  e.training.micro_batch_size = 1;
  EXPECT_FALSE(replicas_in_lockstep(e));  // default: the loss is reduced once per step
  EXPECT_EQ(lockstep_gpus(e.parallelism, 64, replicas_in_lockstep(e)), 2);
  e.training.loss_reduce = LossReduce::microbatch;
  EXPECT_TRUE(replicas_reduce_loss(e));
  EXPECT_TRUE(replicas_in_lockstep(e));
  EXPECT_EQ(lockstep_gpus(e.parallelism, 64, replicas_in_lockstep(e)), 64);
  e.parallelism = plan(2, 1, 1);
  EXPECT_FALSE(replicas_reduce_loss(e));  // one replica: nothing to meet
}

}  // namespace
}  // namespace pf::models
