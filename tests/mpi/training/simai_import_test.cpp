// An imported SimAI/AICB workload run end to end, against a step time worked
// out by hand: every op of the file is on the critical path except the
// weight-gradient collectives, which only the end of the iteration waits for.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "core/communicator.h"
#include "io/config/experiment_loader.h"
#include "io/simai/simai_reader.h"
#include "models/training/training_run.h"

namespace pf::models::training {
namespace {

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
                    "simulation.network=analytical", "hardware.gpu.efficiency.overlap_slowdown=1.0"});
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

TEST(SimaiImport, PipelineStagesExchangePpCommAndWait) {
  // Two stages, two micro-batches (embedding_layer starts each), 4 MiB between stages.
  const std::string piped =
      "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 1 pp: 2 ga: 2 pp_comm 4194304\n"
      "4\n"
      "embedding_layer -1 1000000 NONE 0 1000000 NONE 0 1000000 NONE 0 100\n"
      "layer -1 1000000 NONE 0 1000000 NONE 0 1000000 NONE 0 100\n"
      "embedding_layer -1 1000000 NONE 0 1000000 NONE 0 1000000 NONE 0 100\n"
      "layer -1 1000000 NONE 0 1000000 NONE 0 1000000 NONE 0 100\n";
  const ExperimentSpec e = config::load_experiment(
      kExperiment, {"topology.nodes=1", "hardware.node.gpus_per_node=2", "hardware.node.nics_per_node=2",
                    "simulation.network=analytical", "hardware.gpu.efficiency.communication_overhead_us=0"});
  auto file = std::make_shared<const workload::SimaiWorkload>(io::parse_simai(piped, "piped.txt"));
  const RunResult r = run_training(e, simai_workload(file, 2), core::Communicator::world(), RunOptions{});
  // Each GPU computes 4 x (1 + 1 + 1) ms; stage 1 starts one micro-batch
  // (2 ms) plus a transfer later and stage 0 finishes one backward micro-batch
  // (4 ms) plus a transfer after stage 1: the GPipe bubble of 2 stages.
  const double transfer = 4194304.0 / (e.hardware.node.nvlink_bandwidth_gbps * 1e9) + e.hardware.node.nvlink_latency_us * 1e-6;
  EXPECT_NEAR(r.step_time_s, 12e-3 + 2e-3 + 4e-3 + 2 * transfer, 1e-9 * 32);
  EXPECT_NEAR(r.p2p_wait_s, r.bubble_s, 1e-9);
}

}  // namespace
}  // namespace pf::models::training
