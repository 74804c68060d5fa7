// The order in which one pipeline stage runs forward and backward passes of
// its micro-batches, as Megatron-Core's schedules.py orders them:
//  - 1F1B (forward_backward_pipelining_without_interleaving): stage r runs
//    min(pp - r - 1, m) warm-up forwards, then alternates one forward and one
//    backward, then drains the remaining backwards.
//  - interleaved (forward_backward_pipelining_with_interleaving), with the
//    default microbatch_group_size_per_vp_stage = pp: virtual micro-batch k
//    (0 <= k < m*v) runs micro-batch (k / (pp*v)) * pp + k % pp of chunk
//    (k % (pp*v)) / pp in forward and of chunk v - 1 - that in backward;
//    warm-up is 2 (pp - r - 1) + (v - 1) pp forwards (all of them if that
//    reaches m*v); the steady state runs forward k + warmup then backward k.
// With pp = 1 both reduce to F0 B0 F1 B1 ... (forward_backward_no_pipelining).
// Combined 1F1B (training.overlap_moe_expert_parallel_comm, combined_1f1b.py):
// one more warm-up forward (pp = 1: F0 alone first; interleaved: warm-up + 1),
// and each steady-state forward runs as one step with the backward after it.
// The cursor is random access and holds a few integers, no list.
#pragma once

namespace pf::models::workload {

struct ScheduleStep {
  bool forward = true;
  int microbatch = 0;
  int chunk = 0;
  friend bool operator==(const ScheduleStep&, const ScheduleStep&) = default;
};

class StageSchedule {
 public:
  // chunks = virtual_stages (1 for plain 1F1B). Interleaving (chunks > 1) needs
  // microbatches % pp == 0, which the WorkloadPlan checks.
  StageSchedule(int pp, int stage, int microbatches, int chunks, bool combined_1f1b = false);

  int steps() const { return 2 * total_; }
  ScheduleStep step(int i) const;
  int warmup() const { return warmup_; }
  // Combined 1F1B: step i is a steady-state forward that runs together with
  // step i + 1, a backward of an earlier micro-batch.
  bool combined_with_next(int i) const;

 private:
  ScheduleStep virtual_microbatch(int k, bool forward) const;

  int pp_, chunks_;
  int total_;   // microbatches * chunks forward passes (and as many backward)
  int warmup_;
  bool combined_;
};

}  // namespace pf::models::workload
