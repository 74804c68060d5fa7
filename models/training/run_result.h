// What one simulated training iteration produced, before any formatting: the
// figures of io/report/README.md's report (in SI units: seconds, bytes, FLOPs) and
// this rank's rows for the timeline. io/report turns it into text and JSON,
// io/timeline into timeline.h5. Everything outside `local` is identical on
// every MPI rank.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/statistics.h"
#include "models/memory/plan_summary.h"

namespace pf::models::training {

// Time of one op kind on the binding GPU (bottlenecks.top_ops_by_time).
struct KindTime {
  std::string kind;       // workload kind name: "mlp_fc1_fwd", "tp_all_reduce", ...
  double seconds = 0;     // summed durations on the binding GPU
  std::uint64_t count = 0;
};

// The longest single collective anywhere in the run (bottlenecks.longest_collective).
struct LongestCollective {
  std::string kind;       // "dp_grad_reduce_scatter"
  std::string group;      // "dp[3]"
  std::uint64_t bytes = 0;
  double seconds = 0;     // start (this GPU issued it) to completion
  std::uint32_t gpu = 0;  // the GPU where it took longest (lowest id on ties)
  std::int32_t layer = -1;
  std::int32_t microbatch = -1;
};

// What the report's uncertainty block is built from: how the binding GPU's
// compute was priced, and its compute-stream time by class of kernel, over
// which io/report applies the priors (models/uncertainty/linear_band.h).
struct Uncertainty {
  // Compute-stream time on the binding GPU by class of kernel, seconds.
  double gemm_s = 0, attention_s = 0, memory_bound_s = 0;
  std::string basis;                     // "calibrated", "interpolated", "extrapolated", "roofline_only", or "mixed"
  double calibrated_fraction = 0;        // share of compute time priced from measurements (calibrated or interpolated)
};

// Engine and partition figures (the report's `simulation` block).
struct SimulationFigures {
  int ranks = 1;
  std::uint64_t events = 0;
  double wall_s = 0;          // engine run, slowest rank
  double events_per_s = 0;
  double lookahead_ns = 0;
  std::uint64_t windows = 0;
  std::uint64_t null_messages = 0;
  std::uint64_t partition_cut_edges = 0;
  double imbalance = 0;
  std::uint64_t peak_rss_bytes = 0;  // largest over ranks
  std::uint64_t peak_pending_events = 0;  // largest pending-event queue, summed over ranks
  std::string network;        // "packet" | "analytical"
  std::string sync;           // "window" | "null_message"
  // Replica folding (replica_folding.h): "auto (C of R replicas simulated)" or "off (why)".
  std::string fold;
  int simulated_gpus = 0;     // GPUs that ran their programs
};

// Per-GPU totals (timeline /gpu_summary; all GPUs, split over ranks in `local`).
struct GpuTotals {
  std::uint32_t gpu = 0;
  std::int64_t busy_ps = 0;          // compute stream busy
  std::int64_t exposed_comm_ps = 0;  // a collective under way, compute idle
  std::int64_t comm_ps = 0;          // a collective under way (overlapped or not)
  std::int64_t p2p_wait_ps = 0;      // only pipeline send/recv under way, compute idle
  std::int64_t end_ps = 0;           // when the GPU's last op finished
  std::uint64_t peak_memory_bytes = 0;
};

// One executed op (a timeline /events row, in picoseconds).
struct ExecutedOp {
  std::uint32_t gpu = 0;
  std::uint8_t stream = 0;     // 0 compute, 1 comm, 2 p2p, 3 copy
  std::uint16_t kind = 0;      // workload OpKind
  std::int64_t start_ps = 0;
  std::int64_t end_ps = 0;
  std::int32_t layer = -1;
  std::int32_t microbatch = -1;
  std::uint8_t phase = 0;      // 0 fwd, 1 bwd, 2 opt
  std::uint64_t bytes = 0;
  double flops = 0;
  std::uint32_t group = 0;     // workload GroupId raw value (0 = none)
};

// Per directed link (packet mode).
struct LinkTotals {
  std::uint32_t link = 0;
  std::int64_t busy_ps = 0;
  std::uint64_t bytes = 0;
  std::uint64_t peak_queue_bytes = 0;
};

// Where one fault of the experiment's `faults:` bit (io/report/README.md, faults).
struct FaultImpact {
  int gpus = 0, links = 0, failed_links = 0, servers = 0;  // what it touched (models/network/faults.h)
  bool on_binding_gpu = false;   // a GPU fault that includes the binding GPU
  // GPU faults: mean compute-busy time of its GPUs minus that of the other
  // GPUs of the same pipeline stages (what the slow element added to its own work).
  double extra_compute_s = 0;
  bool extra_known = false;      // false when a stage has no other GPU to compare with
  // Link faults, packet mode: the busiest affected link's busy time, and the bytes over all of them.
  double link_busy_s = 0;
  std::uint64_t link_bytes = 0;
};

struct RunResult {
  double step_time_s = 0;
  // The binding GPU: the one with the most time on its own work (compute,
  // host-bound, offload waits; not waiting on peers): the slowest pipeline
  // stage's slowest GPU; the later end, then the lower id, on ties. Its
  // pipeline stage is bottlenecks.binding_pp_stage.
  std::uint32_t binding_gpu = 0;
  int binding_stage = 0;
  // On the binding GPU (io/report/README.md: critical-path time per phase, on the slowest stage).
  double forward_s = 0, backward_s = 0, optimizer_s = 0;
  double collective_total_s = 0, collective_exposed_s = 0;
  double p2p_wait_s = 0;   // waiting on pipeline send/recv with nothing else to do
  double host_bound_s = 0; // compute idle because the host had not yet issued the next ready kernel
  double offload_wait_s = 0;  // compute idle on activation offload/reload copies (training.cpu_offload_layers)
  double overlap_stretch_s = 0;  // compute time lost to the SMs NCCL kernels held beside it (included in the phases)
  double bubble_s = 0;     // step - compute - exposed collectives - host_bound - offload wait (includes p2p_wait_s)
  // Per pipeline stage, its slowest GPU's own work (compute, host-bound time,
  // offload waits): the binding stage holds the largest.
  std::vector<double> pp_stage_work_s;

  double tokens_per_iteration = 0;
  double model_flops = 0;     // per iteration, whole cluster, no recomputation
  double hardware_flops = 0;  // with recomputation
  double peak_tflops = 0;     // the GPU's dense peak for the training dtype, TFLOP/s
  int gpus = 0;

  memory::PlanSummary memory;  // peak/stage memory and OOM verdict

  std::string dominant_op_type;        // op class with the most time on the binding GPU: "gemm", "attention", ...
  std::vector<KindTime> top_ops;       // the 5 kinds with most time on the binding GPU, descending
  LongestCollective longest_collective;
  Uncertainty uncertainty;
  SimulationFigures simulation;
  std::vector<FaultImpact> faults;     // one per fault of the experiment, in order (empty: none)
  // Figures components published by name (core/statistics.h), merged over
  // ranks; the report writes each at its key's path.
  core::Statistics figures;

  // The MPI rank of every cluster vertex in this run (its partition; the same on every rank).
  std::vector<int> vertex_rank;

  // This rank's share (the GPUs and links it simulated; with replica
  // folding, also the rows of its folded GPUs).
  struct Local {
    std::vector<ExecutedOp> ops;       // selected GPUs only
    std::vector<GpuTotals> gpus;       // every GPU this rank simulated
    std::vector<LinkTotals> links;     // links this rank owns (packet mode)
  } local;
};

}  // namespace pf::models::training
