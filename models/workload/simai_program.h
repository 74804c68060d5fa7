// One GPU's op stream for an imported SimAI/AICB workload (simai_workload.h),
// following op.h's contract so that the same executor runs it.
//
// Order (SimAI's HYBRID_TRANSFORMER_FWD_IN_BCKWD loop, per segment of the
// stage's schedule, simai_schedule.h): forward, every line's compute then its
// collective (blocking: the next compute waits for it); backward, lines in
// reverse, the input-gradient compute and collective (blocking), the
// weight-gradient compute and collective (not blocking: only the end of the
// iteration waits for it). Forward and input-gradient collectives run in the
// TP group unless suffixed _EP/_DP_EP; weight-gradient ones in the DP group.
// Every GPU runs the file's lines (the file describes one pipeline stage's
// work). With pp > 1 and pp_comm, a segment first receives pp_comm bytes from
// the previous virtual stage (its first op waits for the receive and for the
// previous segment's last blocking op) and ends by sending them on, under
// Megatron's 1F1B or interleaved schedule. MICRO files run each line's
// collective over all GPUs, one after another.
#pragma once

#include <array>
#include <cstdint>

#include "models/workload/op.h"
#include "models/workload/rank_layout.h"
#include "models/workload/simai_schedule.h"
#include "models/workload/simai_workload.h"

namespace pf::models::workload {

// The rank layout a SimAI workload implies on `gpus` GPUs (tp, pp and ep from
// the header; dp the rest; MICRO: dp = all). Throws pf::ConfigError naming the
// file when the GPU count does not fit, or when the pipeline cannot be
// interleaved as the header asks (simai_pipeline).
ParallelismSpec simai_parallelism(const SimaiWorkload& w, int gpus);

class SimaiProgram {
 public:
  // `w` and `layout` must outlive the program.
  SimaiProgram(const SimaiWorkload& w, const RankLayout& layout, int gpu);

  bool next(Op& op);
  int gpu() const { return gpu_; }
  // Segments issued over segments, 0..1 (as GpuProgram::progress()).
  double progress() const;

 private:
  bool emit_micro(Op& op);
  bool emit_segment(Op& op);
  bool emit_forward(Op& op, std::size_t line, int step);
  bool emit_backward(Op& op, std::size_t line, int step);
  bool compute_op(Op& op, OpKind kind, Phase phase, std::int64_t ns, std::size_t line);
  bool comm_op(Op& op, const SimaiComm& c, bool second, Phase phase, std::size_t line);
  void begin(Op& op, OpKind kind, Phase phase, int line);
  void p2p(Op& op, bool send);
  void wait_blocking(Op& op) const;
  void blocking(Op& op);

  const SimaiWorkload* w_;
  const RankLayout* layout_;
  int gpu_;
  Coords coords_;
  SimaiSchedule schedule_;
  SimaiSegment seg_;
  std::array<std::uint32_t, kGroupKindCount> seq_{};
  std::uint32_t next_id_ = 0;
  std::uint32_t last_blocking_ = kNoOp;  // the op the next compute waits for
  std::uint32_t recv_ = kNoOp;  // this segment's receive, until a blocking op has waited for it
  std::uint32_t last_weight_comm_ = kNoOp;  // a weight-gradient all-to-all follows its all-reduce
  bool done_ = false;
  int segment_ = 0;        // the next segment
  bool in_segment_ = false;
  std::size_t pos_ = 0;    // within the segment: 0 receive, 1..lines the lines, lines + 1 send; MICRO: the line
  int stage_ = 0;          // the next step within the line (FwdStep / BwdStep in the .cpp)
};

}  // namespace pf::models::workload
