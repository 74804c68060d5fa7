// Where each line of an imported SimAI/AICB file (simai_workload.h) runs in
// one pipeline stage's iteration: the file's lines cut into stretches
// (segments) that SimaiProgram runs forward or backward in turn.
//
// AICB writes one stage's work with the micro-batches unrolled: iteration-level
// lines (gradient sync: grad_gather, grad_param_comm, ...), then per
// micro-batch an `embedding_layer` line, the stage's transformer layers and
// trailing lines (final_column, and after the last one cross_entropy and
// optimizer lines).
//  - Not piped (pp = 1, or no pp_comm; SimAI's own order): every micro-batch
//    block forward in file order, then every block backward in reverse; lines
//    before the first block travel with block 0 (simai_microbatch_starts).
//  - Piped (pp > 1 with pp_comm): Megatron-Core's schedules (StageSchedule):
//    1F1B when vpp = 1, interleaved with v = vpp model chunks otherwise. Each
//    block's layers are cut into v consecutive chunks of equal layer count at
//    layer starts: a layer starts at the first of a run of lines named
//    attention* (attention_layer; attention_column, attention_row; DeepSeek's
//    attention_linear_*, attention_q_column, ... in AICB's generators), or at
//    a line repeating the name of its layer's first line. The block's leading
//    lines (embedding) go with chunk 0, its trailing lines with the last
//    chunk. Chunk c of stage s is virtual stage c * pp + s; each segment
//    receives pp_comm bytes from the previous virtual stage and sends them to
//    the next one (backward the other way), so chunk c of the last stage
//    feeds chunk c + 1 of stage 0. The iteration-level lines run forward
//    before the first step (prologue) and backward after the last one
//    (epilogue), first and last as in SimAI's order: their gradient
//    collectives wait for the whole pipeline without holding it up.
#pragma once

#include <cstdint>
#include <vector>

#include "models/workload/schedule.h"
#include "models/workload/simai_workload.h"

namespace pf::models::workload {

// The file's lines grouped for the schedule (the same for every stage).
struct SimaiPipeline {
  bool piped = false;   // pp > 1 with pp_comm: Megatron's schedules, p2p between stages
  int microbatches = 1;
  int chunks = 1;       // model chunks per stage: vpp when piped, else 1
  std::uint32_t lead_end = 0;  // piped: lines [0, lead_end) are iteration-level
  // Piece k = microbatch * chunks + chunk covers lines [bounds[k], bounds[k + 1]).
  std::vector<std::uint32_t> bounds;
};

// Throws pf::ConfigError naming the file when interleaving (vpp > 1 and piped)
// cannot apply: micro-batches (ga) not a multiple of pp, or a micro-batch whose
// transformer layers do not split into vpp equal chunks.
SimaiPipeline simai_pipeline(const SimaiWorkload& w);

// One stretch of lines run in one direction, with its pipeline transfers.
struct SimaiSegment {
  bool forward = true;
  std::uint32_t begin = 0, end = 0;  // lines [begin, end); backward runs them last first
  int microbatch = -1;               // -1: the iteration-level lines
  int chunk = -1;                    // piped: model chunk on this stage
  bool recv = false, send = false;   // pp_comm bytes before / after the lines
  int recv_stage = -1, send_stage = -1;  // the peer pipeline stages
  std::uint32_t recv_tag = 0, send_tag = 0;
};

// One stage's segments, random access, as StageSchedule is.
class SimaiSchedule {
 public:
  SimaiSchedule(const SimaiWorkload& w, int stage);

  int segments() const { return segments_; }
  SimaiSegment segment(int i) const;
  const SimaiPipeline& pipeline() const { return pipe_; }

 private:
  SimaiSegment step_segment(const ScheduleStep& s) const;
  std::uint32_t tag(int microbatch, int receiver, bool forward) const;

  SimaiPipeline pipe_;
  int pp_, stage_;
  StageSchedule steps_;
  bool prologue_ = false;  // piped with iteration-level lines: one segment before and one after the steps
  int segments_ = 0;
};

}  // namespace pf::models::workload
