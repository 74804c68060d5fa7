// What one rank holds after the engine has run, reduced to what the merged
// RunResult needs: the latest end of its GPUs (the step), its candidate for
// the binding GPU (BindingKey below) with that GPU's figures, its longest
// collective, its engine and resource figures, what is stuck, and its share
// of the fault figures. A runner all-gathers every rank's as bytes
// (encode/decode); merge_results (result_merge.h) turns them into the one
// RunResult every rank agrees on, and local_rows() adds the rows only this
// rank has.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/engine_stats.h"
#include "core/statistics.h"
#include "models/network/lp_partition.h"
#include "models/training/gpu_stats.h"
#include "models/training/run_result.h"
#include "models/training/training_model.h"
#include "models/training/training_setup.h"

namespace pf::models::training {

// One GPU's figures, for the report's phase and bottleneck blocks.
struct GpuFigures {
  GpuStats stats;
  std::int64_t busy_ps = 0, exposed_ps = 0, comm_ps = 0, p2p_wait_ps = 0, host_wait_ps = 0;
  double stretch_s = 0;
  std::int64_t offload_wait_ps = 0;  // compute idle on a host copy (activation offloading)  // compute time lost to NCCL kernels beside it (TimeAccounting::stretch_s)
};

// The longest single communication op (ps = -1: none).
struct LongestOp {
  std::int64_t ps = -1;
  std::uint32_t gpu = 0;
  workload::Op op;
};

// How much of the step a GPU spent on its own work: compute, the host not
// having issued a ready kernel, activation copies it waited for. Waiting on
// peers (pipeline receives, collectives behind a slower member) is left out,
// so the pipeline stage with the most work per micro-batch holds the largest.
std::int64_t own_work_ps(const GpuFigures& f);

// What ranks GPUs as the binding one: more own work, then the later end,
// then the lower id.
struct BindingKey {
  std::int64_t work_ps = -1;  // own_work_ps; -1: no GPU yet
  std::int64_t end_ps = -1;
  std::uint32_t gpu = 0;
  bool binds_before(const BindingKey& other) const;
};

struct RankFigures {
  struct Fixed {
    std::int64_t end_ps = -1;   // the latest end of this rank's GPUs; -1: it simulated none
    BindingKey binding;  // this rank's candidate for the binding GPU
    GpuFigures binding_figures;
    LongestOp longest;
    core::EngineStats engine;   // this rank's (LpContext::local_stats)
    double peak_rss_bytes = 0;  // measured by the runner
  } fixed;
  std::string stuck;                 // "; "-joined descriptions of up to 8 unfinished GPUs
  std::vector<std::int64_t> faults;  // fault_figures() (fault_impact.h); empty without faults
  // Per pipeline stage, the most own work (own_work_ps) of this rank's GPUs
  // in it; -1 where it simulated none of the stage's GPUs.
  std::vector<std::int64_t> stage_work_ps;
  core::Statistics figures;          // what the engine, network and model published (core/statistics.h)
};

// This rank's figures; `peak_rss_bytes` is whatever the caller measured.
RankFigures rank_figures(const TrainingSetup& setup, const partition::RankMapping& mapping, int rank,
                         const TrainingModel& model, const core::EngineStats& engine, double peak_rss_bytes);

// Bytes for an all-gather, and back (pf::SimulationError on a malformed blob).
std::string encode(const RankFigures& figures);
RankFigures decode(const std::string& bytes);

// The rows only this rank has: its GPUs' totals, its recorded ops (moved out
// of the model) and, in packet mode, the counters of the links it owns.
RunResult::Local local_rows(const TrainingSetup& setup, const partition::RankMapping& mapping, int rank,
                            TrainingModel& model);

}  // namespace pf::models::training
