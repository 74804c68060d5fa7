// Faults' physics, under mpiexec on 1 and 2 ranks: a straggler lengthens a
// synchronous data-parallel step by its extra compute; jitter with sigma 0 is
// the healthy run exactly, keeps the mean, and is a function of its seed; a
// failed spine among k cuts cross-leaf all-to-all bandwidth by about 1/k in
// packet mode; a mixed server computes at its own GPUs' speed.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "core/communicator.h"
#include "io/config/experiment_loader.h"
#include "io/run/collective_bench.h"
#include "io/run/training_run.h"
#include "tests/unit/network/test_cluster.h"

namespace pf::models::training {
namespace {

using run::RunOptions;
using run::run_training;

const std::string kExperiment = std::string(PF_SOURCE_ROOT) + "/tests/mpi/training/small-pipeline.yaml";

RunResult run(std::vector<std::string> overrides) {
  const ExperimentSpec e = config::load_experiment(kExperiment, overrides);
  return run_training(e, core::Communicator::world(), RunOptions{});
}

// Synchronous data parallelism: 8 GPUs on two servers, each step ends with
// the gradient all-reduce every replica waits for. No overlap slowdown, so a
// kernel's time is its priced time.
std::vector<std::string> data_parallel(std::vector<std::string> more = {}) {
  std::vector<std::string> o{"topology.nodes=2", "hardware.node.gpus_per_node=4", "hardware.node.nics_per_node=4",
                             "parallelism.pp=1", "parallelism.dp=8", "parallelism.zero_stage=0",
                             "hardware.gpu.efficiency.overlap_slowdown=1.0", "hardware.gpu.efficiency.overlap_sm_cost=0",
                             "simulation.network=analytical"};
  o.insert(o.end(), more.begin(), more.end());
  return o;
}

// 16 micro-batches per replica: compute dominates and the reduction hides behind
// it, so all of the straggler's compute is on the critical path.
TEST(FaultPhysics, AStragglerLengthensTheStepByItsExtraCompute) {
  const RunResult healthy = run(data_parallel({"training.global_batch_size=128"}));
  const double compute = healthy.forward_s + healthy.backward_s + healthy.optimizer_s;
  for (double s : {1.1, 1.3}) {
    const RunResult slow = run(data_parallel({"training.global_batch_size=128",
                                              "faults=[{gpus: \"5\", compute_slowdown: " + std::to_string(s) + "}]"}));
    // Every replica waits for the straggler at the reduction: the step grows by
    // (s - 1) x its compute on the critical path, less what waiting hid.
    const double added = slow.step_time_s - healthy.step_time_s;
    EXPECT_NEAR(added, (s - 1) * compute, 0.05 * (s - 1) * compute)
        << "s = " << s << ": added " << added << " s, compute " << compute << " s, healthy step " << healthy.step_time_s
        << " s, exposed " << healthy.collective_exposed_s << " -> " << slow.collective_exposed_s;
    EXPECT_LE(added, (s - 1) * compute * (1 + 1e-6));
    EXPECT_EQ(slow.binding_gpu, 5u);
    ASSERT_EQ(slow.faults.size(), 1u);
    EXPECT_TRUE(slow.faults[0].on_binding_gpu);
    // Its own compute is s times its healthy peers', to rounding of each kernel to the picosecond.
    ASSERT_TRUE(slow.faults[0].extra_known);
    EXPECT_NEAR(slow.faults[0].extra_compute_s, (s - 1) * compute, 1e-6 * compute);
  }
}

TEST(FaultPhysics, JitterWithSigmaZeroIsTheHealthyRunExactly) {
  const RunResult healthy = run(data_parallel());
  const RunResult zero = run(data_parallel({"faults=[{gpus: all, compute_jitter: {sigma: 0, seed: 3}}]"}));
  EXPECT_EQ(zero.step_time_s, healthy.step_time_s);
  EXPECT_EQ(zero.forward_s, healthy.forward_s);
  EXPECT_EQ(zero.backward_s, healthy.backward_s);
  EXPECT_EQ(zero.collective_exposed_s, healthy.collective_exposed_s);
  EXPECT_EQ(zero.binding_gpu, healthy.binding_gpu);
  // sigma -> 0: the result converges to the healthy one.
  const RunResult tiny = run(data_parallel({"faults=[{gpus: all, compute_jitter: {sigma: 1e-7, seed: 3}}]"}));
  EXPECT_NEAR(tiny.step_time_s, healthy.step_time_s, 1e-6 * healthy.step_time_s);
  EXPECT_NE(tiny.step_time_s, healthy.step_time_s);
}

TEST(FaultPhysics, JitterKeepsTheMeanAndFollowsItsSeed) {
  // One GPU, no communication: its compute is the sum of ~1,000 jittered kernels.
  const std::vector<std::string> one{"topology.nodes=1", "hardware.node.gpus_per_node=1", "hardware.node.nics_per_node=1",
                                     "parallelism.pp=1", "parallelism.dp=1"};
  auto with = [&](const std::string& jitter) {
    auto o = one;
    o.push_back("faults=[{gpus: all, compute_jitter: " + jitter + "}]");
    return run(o);
  };
  const RunResult healthy = run(one);
  const double compute = healthy.forward_s + healthy.backward_s + healthy.optimizer_s;
  for (const char* dist : {"lognormal", "normal"}) {
    const RunResult a = with(std::string("{distribution: ") + dist + ", sigma: 0.1, seed: 3}");
    const RunResult b = with(std::string("{distribution: ") + dist + ", sigma: 0.1, seed: 3}");
    const RunResult c = with(std::string("{distribution: ") + dist + ", sigma: 0.1, seed: 4}");
    const double jittered = a.forward_s + a.backward_s + a.optimizer_s;
    // Mean 1: the total stays within a few sigma / sqrt(kernels) of the healthy one.
    EXPECT_NEAR(jittered / compute, 1.0, 0.02) << dist;
    EXPECT_NE(jittered, compute) << dist;
    EXPECT_EQ(a.step_time_s, b.step_time_s) << dist;
    EXPECT_NE(a.step_time_s, c.step_time_s) << dist;
  }
}

TEST(FaultPhysics, AMixedServerComputesAtItsOwnGpusSpeed) {
  // The second server gets GPUs with half the bf16 peak: a synchronous DP step
  // runs at their pace, as if the whole cluster had them. Its gradient
  // all-reduce runs message by message (simulation.inter_server: packet), so
  // that the slow GPUs, the last to join, finish last and bind; timed in
  // closed form every member completes at once and GPU 0 binds on the tie.
  const std::string a100 = std::string(PF_SOURCE_ROOT) + "/configs/hardware/a100-sxm-80gb.yaml";
  const std::string batch = "training.global_batch_size=128", messages = "simulation.inter_server=packet";
  const RunResult healthy = run(data_parallel({batch, messages}));
  const RunResult all_slow = run(data_parallel({batch, messages, "hardware.gpu.peak_tflops.bf16=156"}));
  const RunResult mixed = run(data_parallel(
      {batch, messages, "faults=[{gpus: \"4-7\", hardware: " + a100 + "}]",
       "faults.0.hardware.gpu.peak_tflops.bf16=156", "faults.0.hardware.node.gpus_per_node=4",
       "faults.0.hardware.node.nics_per_node=4"}));
  EXPECT_GT(mixed.step_time_s, healthy.step_time_s * 1.3);
  EXPECT_NEAR(mixed.step_time_s, all_slow.step_time_s, 0.02 * all_slow.step_time_s);
  EXPECT_GE(mixed.binding_gpu, 4u);
  EXPECT_EQ(mixed.faults[0].servers, 1);
  // The slow GPUs' own compute is the all-slow cluster's, the healthy ones' the healthy cluster's.
  const double slow_compute = all_slow.forward_s + all_slow.backward_s + all_slow.optimizer_s;
  const double fast_compute = healthy.forward_s + healthy.backward_s + healthy.optimizer_s;
  ASSERT_TRUE(mixed.faults[0].extra_known);
  EXPECT_NEAR(mixed.faults[0].extra_compute_s, slow_compute - fast_compute, 1e-6 * slow_compute);
}

// 16 servers of 4 GPUs and 4 NICs, one server a leaf (fat tree, non-blocking):
// each leaf has 4 uplinks, one to each of k = 4 spines. An all-to-all over all
// 64 GPUs sends 15/16 of its bytes across leaves, through the spines.
TEST(FaultPhysics, AFailedSpineAmongKCutsCrossLeafAllToAllByOneOverK) {
  models::TopologySpec t;
  t.kind = models::TopologyKind::fat_tree;
  t.nodes = 16;
  t.nodes_per_leaf = 1;
  t.link_latency_us = 0.1;
  t.switch_latency_us = 0.13;
  models::SimulationSpec sim;
  sim.network = models::NetworkMode::packet;
  sim.chunk_bytes = 64 << 10;
  sim.partition = models::PartitionStrategy::block;
  run::BenchOptions failed_spine;
  models::FaultSpec f;
  f.target = models::FaultTarget::switch_vertex;
  f.src = "spine1";
  f.failed = true;
  failed_spine.faults = {f};
  const run::CollectiveBench healthy(test::server(4, 4), t, sim, core::Communicator::world());
  const run::CollectiveBench faulted(test::server(4, 4), t, sim, core::Communicator::world(), failed_spine);
  ASSERT_EQ(healthy.graph().count(models::network::VertexKind::spine), 4);
  const run::BenchCase all_to_all{models::collective::Op::all_to_all,
                                                 models::collective::Algo::automatic, 64, 64u << 20, 0};
  const double before = healthy.run(all_to_all).time.seconds();
  const double after = faulted.run(all_to_all).time.seconds();
  if (core::Communicator::world().rank() == 0)
    std::printf("all-to-all over 64 GPUs: %.3f ms healthy, %.3f ms with one of 4 spines failed (ratio %.3f)\n",
                before * 1e3, after * 1e3, before / after);
  // Bus bandwidth is bytes / time: three spines of four carry it, so ~3/4
  // (ECMP's hash collisions, present in both, blur it a little).
  EXPECT_NEAR(before / after, 0.75, 0.08) << before << " s healthy, " << after << " s with a failed spine";
}

}  // namespace
}  // namespace pf::models::training
