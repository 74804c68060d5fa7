#include "models/workload/schedule.h"

#include <algorithm>

namespace pf::models::workload {

StageSchedule::StageSchedule(int pp, int stage, int microbatches, int chunks, bool combined_1f1b)
    : pp_(pp), chunks_(chunks), total_(microbatches * chunks), combined_(combined_1f1b) {
  // Combined 1F1B runs one forward more before the steady state, so that the
  // forward and backward of every combined step are independent
  // (get_pp_rank_microbatches; combined_1f1b_schedule_for_no_pipelining).
  const int extra = combined_1f1b ? 1 : 0;
  if (chunks_ == 1) {
    warmup_ = std::min(pp_ - stage - 1 + extra, total_);
  } else {
    warmup_ = 2 * (pp_ - stage - 1) + (chunks_ - 1) * pp_ + extra;
    warmup_ = std::min(warmup_, total_);
  }
}

bool StageSchedule::combined_with_next(int i) const {
  const int j = i - warmup_;
  return combined_ && j >= 0 && j % 2 == 0 && j < 2 * (total_ - warmup_);
}

ScheduleStep StageSchedule::virtual_microbatch(int k, bool forward) const {
  int group_span = pp_ * chunks_;
  int in_group = k % group_span;
  int chunk = in_group / pp_;
  ScheduleStep s;
  s.forward = forward;
  s.microbatch = (k / group_span) * pp_ + in_group % pp_;
  s.chunk = forward ? chunk : chunks_ - 1 - chunk;
  if (chunks_ == 1) s.microbatch = k;  // plain 1F1B: no grouping
  return s;
}

ScheduleStep StageSchedule::step(int i) const {
  int remaining = total_ - warmup_;
  if (i < warmup_) return virtual_microbatch(i, true);
  int j = i - warmup_;
  if (j < 2 * remaining) {
    return (j % 2 == 0) ? virtual_microbatch(warmup_ + j / 2, true) : virtual_microbatch(j / 2, false);
  }
  return virtual_microbatch(remaining + (j - 2 * remaining), false);
}

}  // namespace pf::models::workload
