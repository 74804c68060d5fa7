// One GPU's op stream for an imported SimAI/AICB workload (simai_workload.h),
// following op.h's contract so that the same executor runs it.
//
// Order (SimAI's HYBRID_TRANSFORMER_FWD_IN_BCKWD loop): every line's forward
// compute then its forward collective (blocking: the next compute waits for
// it); then, lines in reverse, the input-gradient compute and collective
// (blocking), the weight-gradient compute and collective (not blocking: only
// the end of the iteration waits for it). Forward and input-gradient
// collectives run in the TP group unless suffixed _EP/_DP_EP; weight-gradient
// ones in the DP group. Every GPU runs the file's lines (the file describes
// one pipeline stage's work); with pp > 1 and pp_comm, each micro-batch of the
// file (simai_microbatch_starts) first receives pp_comm bytes from the
// previous stage and then sends them to the next one, backward in reverse
// (a GPipe-style schedule: all forwards, then all backwards, as the file's
// order has it). MICRO files run each line's collective over all GPUs, one
// after another.
#pragma once

#include <array>
#include <cstdint>

#include "models/workload/op.h"
#include "models/workload/rank_layout.h"
#include "models/workload/simai_workload.h"

namespace pf::models::workload {

// The rank layout a SimAI workload implies on `gpus` GPUs (tp, pp and ep from
// the header; dp the rest; MICRO: dp = all). Throws pf::ConfigError naming the
// file when the GPU count does not fit.
ParallelismSpec simai_parallelism(const SimaiWorkload& w, int gpus);

class SimaiProgram {
 public:
  // `w` and `layout` must outlive the program.
  SimaiProgram(const SimaiWorkload& w, const RankLayout& layout, int gpu);

  bool next(Op& op);
  int gpu() const { return gpu_; }

 private:
  struct Place {
    int microbatch;
    bool block_start, block_end;  // first / last line of its micro-batch
  };
  Place place_of(std::size_t line) const;
  bool compute_op(Op& op, OpKind kind, Phase phase, std::int64_t ns, std::size_t line, int microbatch);
  bool emit_micro(Op& op);
  bool emit_forward(Op& op);
  bool emit_backward(Op& op);
  void begin(Op& op, OpKind kind, Phase phase, int line, int microbatch);
  bool comm_op(Op& op, const SimaiComm& c, bool second, Phase phase, int line, int microbatch);
  void p2p(Op& op, bool send, bool forward, int microbatch);
  int microbatch_of(std::size_t line) const;

  const SimaiWorkload* w_;
  const RankLayout* layout_;
  int gpu_;
  Coords coords_;
  std::vector<std::size_t> starts_;
  std::array<std::uint32_t, kGroupKindCount> seq_{};
  std::uint32_t next_id_ = 0;
  std::uint32_t last_blocking_ = kNoOp;  // the op the next compute waits for
  std::uint32_t last_weight_comm_ = kNoOp;  // a weight-gradient all-to-all follows its all-reduce
  bool backward_ = false;
  bool done_ = false;
  std::size_t line_ = 0;   // forward: next line; backward: lines left
  int stage_ = 0;          // the next step within the line (FwdStep / BwdStep in the .cpp)
};

}  // namespace pf::models::workload
