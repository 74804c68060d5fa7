// A RunResult filled by hand, with figures whose derived values are easy to
// state in closed form: 64 GPUs, a 1.5 s step, 150 TFLOP/s of model FLOPs and
// 180 of hardware FLOPs per GPU, 312 TFLOP/s peak.
#pragma once

#include "models/spec/experiment_spec.h"
#include "models/training/run_result.h"

namespace pf::report::test {

inline models::training::RunResult sample_run() {
  models::training::RunResult r;
  r.step_time_s = 1.5;
  r.binding_gpu = 17;
  r.binding_stage = 2;
  r.forward_s = 0.4;
  r.backward_s = 0.8;
  r.optimizer_s = 0.05;
  r.collective_total_s = 0.3;
  r.collective_exposed_s = 0.12;
  r.p2p_wait_s = 0.03;
  r.bubble_s = 0.13;
  r.pp_stage_work_s = {1.2105, 1.22025, 1.3, 1.25075};  // the binding stage, 2, holds the most
  r.tokens_per_iteration = 1536.0 * 2048.0;
  r.gpus = 64;
  r.model_flops = 150e12 * 1.5 * 64;
  r.hardware_flops = 180e12 * 1.5 * 64;
  r.peak_tflops = 312;
  r.memory.pp_stage_memory_gb = {61.25, 63.5, 66.75, 64.125};
  r.memory.parameters_gb = 10.5;
  r.memory.gradients_gb = 5.25;
  r.memory.optimizer_gb = 21.0;
  r.memory.activations_gb = 28.75;
  r.memory.comm_buffers_gb = 1.25;
  r.memory.peak_memory_gb = 66.75;
  r.memory.binding_stage = 2;
  r.dominant_op_type = "gemm";
  r.top_ops = {{"mlp_fc1_fwd", 0.2125, 384}, {"attention_bwd", 0.1875, 384}, {"tp_all_reduce", 0.0625, 768}};
  r.longest_collective = {"dp_grad_reduce_scatter", "dp[3]", 536870912, 0.0215, 5, 3, -1};
  r.uncertainty.basis = "mixed";
  r.uncertainty.calibrated_fraction = 0.625;
  r.uncertainty.gemm_s = 0.8;
  r.uncertainty.attention_s = 0.2;
  r.uncertainty.memory_bound_s = 0.1;
  r.simulation.ranks = 2;
  r.simulation.events = 12345678;
  r.simulation.wall_s = 3.25;
  r.simulation.events_per_s = 12345678 / 3.25;
  r.simulation.lookahead_ns = 1750;
  r.simulation.windows = 4321;
  r.simulation.null_messages = 0;
  r.simulation.partition_cut_edges = 24;
  r.simulation.imbalance = 1.0625;
  r.simulation.peak_rss_bytes = 3ull << 30;
  r.simulation.network = "packet";
  r.simulation.sync = "window";
  return r;
}

inline models::ExperimentSpec sample_experiment() {
  models::ExperimentSpec e;
  e.name = "sample-64";
  e.merged_yaml = "name: sample-64\n";
  return e;
}

}  // namespace pf::report::test
