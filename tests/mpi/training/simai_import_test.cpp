// An imported SimAI/AICB workload run end to end, against a step time worked
// out by hand: every op of the file is on the critical path except the
// weight-gradient collectives, which only the end of the iteration waits for;
// and pipelined files under Megatron's 1F1B and interleaved schedules.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/communicator.h"
#include "io/config/experiment_loader.h"
#include "io/simai/simai_reader.h"
#include "io/run/training_run.h"

namespace pf::models::training {
namespace {

using run::RunOptions;
using run::run_training;

const std::string kExperiment = std::string(PF_SOURCE_ROOT) + "/tests/mpi/training/simai.yaml";

// TP 2 on a 4-GPU server (so DP 2); forward: a, b, c; backward: c, b, a.
// Only `a` has a weight-gradient collective (the DP all-reduce), and it is
// the last thing issued, so all of it is exposed.
const std::string kFile =
    "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2\n"
    "3\n"
    "a -1 1000000 ALLREDUCE 1048576 2000000 ALLREDUCE 1048576 500000 ALLREDUCE 8388608 100\n"
    "b -1 3000000 NONE 0 1000000 ALLGATHER 2097152 700000 NONE 0 100\n"
    "c -1 2000000 REDUCESCATTER 4194304 1500000 NONE 0 800000 NONE 0 100\n";

TEST(SimaiImport, AnalyticalStepIsComputePlusBlockingCollectivesPlusTheLastReduction) {
  const ExperimentSpec e = config::load_experiment(
      kExperiment, {"topology.nodes=1", "hardware.node.gpus_per_node=4", "hardware.node.nics_per_node=4",
                    "simulation.network=analytical", "simulation.collective_model=links", "hardware.node.nvlink_efficiency=1",
                    "hardware.node.nic_efficiency=1", "hardware.gpu.efficiency.overlap_slowdown=1.0",
                    "hardware.gpu.efficiency.overlap_sm_cost=0"});
  auto file = std::make_shared<const workload::SimaiWorkload>(io::parse_simai(kFile, "hand.txt"));
  const RunResult r = run_training(e, simai_workload(file, 4), core::Communicator::world(), RunOptions{});

  // Worked out independently: ring closed forms over NVLink for groups of 2.
  const double B = e.hardware.node.nvlink_bandwidth_gbps * 1e9;
  const double a = e.hardware.node.nvlink_latency_us * 1e-6;
  const double o = e.hardware.gpu.efficiency.communication_overhead_us * 1e-6;
  const double n = 2;
  auto all_reduce = [&](double s) { return 2 * (n - 1) / n * s / B + 2 * (n - 1) * a + o; };
  auto gather_or_scatter = [&](double s) { return (n - 1) / n * s / B + (n - 1) * a + o; };
  const double compute = (1.0 + 3.0 + 2.0) * 1e-3 + (1.5 + 0.8 + 1.0 + 0.7 + 2.0 + 0.5) * 1e-3;
  const double tp = all_reduce(1048576) + gather_or_scatter(4194304) + gather_or_scatter(2097152) + all_reduce(1048576);
  const double dp = all_reduce(8388608);
  EXPECT_NEAR(r.step_time_s, compute + tp + dp, 1e-9 * 16);  // ps rounding of 16 ops
  EXPECT_NEAR(r.forward_s + r.backward_s, compute, 1e-9);
  EXPECT_NEAR(r.collective_exposed_s, tp + dp, 1e-9 * 16);
  EXPECT_NEAR(r.bubble_s, 0.0, 1e-9);
  EXPECT_EQ(r.uncertainty.basis, "calibrated");  // measured times from the file
}

TEST(SimaiImport, PipelineStagesRunOneFOneB) {
  // Two stages, two micro-batches (embedding_layer starts each), 4 MiB between
  // stages. Micro-batch 0: forward 1 + 1 ms, backward (1 + 1) + (1 + 1) ms;
  // micro-batch 1: forward 2 + 2 ms, backward (0.5 + 0.5) + (0.5 + 0.5) ms.
  const std::string piped =
      "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 1 pp: 2 ga: 2 pp_comm 4194304\n"
      "4\n"
      "embedding_layer -1 1000000 NONE 0 1000000 NONE 0 1000000 NONE 0 100\n"
      "layer -1 1000000 NONE 0 1000000 NONE 0 1000000 NONE 0 100\n"
      "embedding_layer -1 2000000 NONE 0 500000 NONE 0 500000 NONE 0 100\n"
      "layer -1 2000000 NONE 0 500000 NONE 0 500000 NONE 0 100\n";
  const ExperimentSpec e = config::load_experiment(
      kExperiment, {"topology.nodes=1", "hardware.node.gpus_per_node=2", "hardware.node.nics_per_node=2",
                    "simulation.network=analytical", "simulation.collective_model=links", "hardware.node.nvlink_efficiency=1",
                    "hardware.node.nic_efficiency=1", "hardware.gpu.efficiency.communication_overhead_us=0"});
  auto file = std::make_shared<const workload::SimaiWorkload>(io::parse_simai(piped, "piped.txt"));
  const RunResult r = run_training(e, simai_workload(file, 2), core::Communicator::world(), RunOptions{});
  // 1F1B (t = one transfer, times in ms): stage 0 runs F0 [0, 2], F1 [2, 6];
  // stage 1 F0 [2 + t, 4 + t], B0 [4 + t, 8 + t], F1 [8 + t, 12 + t], B1
  // [12 + t, 14 + t]; stage 0 then B0 [8 + 2t, 12 + 2t] and B1 [14 + 2t,
  // 16 + 2t]. Step 16 ms + 2t; each GPU computes 12 ms, stage 0 waits the
  // rest. (GPipe, F0 F1 B1 B0 on both stages, would take 20 ms + 2t.)
  const double transfer = 4194304.0 / (e.hardware.node.nvlink_bandwidth_gbps * 1e9) + e.hardware.node.nvlink_latency_us * 1e-6;
  EXPECT_NEAR(r.step_time_s, 16e-3 + 2 * transfer, 1e-9 * 32);
  EXPECT_NEAR(r.forward_s + r.backward_s, 12e-3, 1e-9);
  EXPECT_NEAR(r.bubble_s, 4e-3 + 2 * transfer, 1e-9 * 32);
  EXPECT_NEAR(r.p2p_wait_s, r.bubble_s, 1e-9);
}

// A generated file: pp 4, 8 micro-batches of 4 layers, each layer 1 ms forward
// and 1 + 1 ms backward, 1 KiB between stages and no collectives, so the
// bubble is the schedule's alone: (p - 1) / m of the ideal (each stage's own
// compute) for 1F1B, (p - 1) / (v m) for the interleaved schedule.
std::string pipeline_file(int vpp) {
  const int microbatches = 8, layers = 4;
  std::string lines;
  int count = 0;
  for (int mb = 0; mb < microbatches; ++mb) {
    lines += "embedding_layer -1 0 NONE 0 0 NONE 0 0 NONE 0 100\n";
    for (int l = 0; l < layers; ++l) lines += "attention_column -1 1000000 NONE 0 1000000 NONE 0 1000000 NONE 0 100\n";
    lines += "final_column -1 0 NONE 0 0 NONE 0 0 NONE 0 100\n";
    count += layers + 2;
  }
  return "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 1 pp: 4 vpp: " + std::to_string(vpp) +
         " ga: " + std::to_string(microbatches) + " pp_comm 1024\n" + std::to_string(count) + "\n" + lines;
}

RunResult run_pipeline(int vpp) {
  const ExperimentSpec e = config::load_experiment(
      kExperiment, {"topology.nodes=1", "hardware.node.gpus_per_node=4", "hardware.node.nics_per_node=4",
                    "simulation.network=analytical", "simulation.collective_model=links", "hardware.node.nvlink_efficiency=1",
                    "hardware.node.nic_efficiency=1", "hardware.gpu.efficiency.communication_overhead_us=0"});
  auto file = std::make_shared<const workload::SimaiWorkload>(io::parse_simai(pipeline_file(vpp), "pipe.txt"));
  return run_training(e, simai_workload(file, 4), core::Communicator::world(), RunOptions{});
}

TEST(SimaiImport, PipelineBubblesFollowMegatronSchedules) {
  const RunResult one = run_pipeline(1), two = run_pipeline(2);
  const double ideal = 8 * 4 * 3e-3;  // 8 micro-batches x 4 layers x 3 ms on every stage
  EXPECT_NEAR(one.forward_s + one.backward_s, ideal, 1e-9);
  EXPECT_NEAR(two.forward_s + two.backward_s, ideal, 1e-9);
  EXPECT_NEAR(one.bubble_s / ideal, 3.0 / 8, 0.02 * 3.0 / 8);        // (p - 1) / m
  EXPECT_NEAR(two.bubble_s / ideal, 3.0 / (2 * 8), 0.02 * 3.0 / 16);  // (p - 1) / (v m)
  EXPECT_NEAR(one.collective_exposed_s, 0.0, 1e-12);
  EXPECT_NEAR(two.p2p_wait_s, two.bubble_s, 1e-9);
}

}  // namespace
}  // namespace pf::models::training
