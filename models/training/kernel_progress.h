// The compute kernel running on a GPU, re-timed when its speed changes.
//
// A kernel holds `work` seconds of work at full speed. While NCCL kernels run
// beside it they hold SMs (one thread block per channel) and HBM bandwidth,
// so it progresses slower (GpuExecutor::compute_rate); when they end it speeds
// up again.
// Each change of rate settles the work done so far and gives a new finish
// time; the finish event scheduled before becomes stale (its token no longer
// matches) and is ignored. So a kernel overlapped by a collective for part of
// its length is slowed for exactly that part.
#pragma once

#include <cstdint>

#include "core/sim_time.h"

namespace pf::models::training {

class KernelProgress {
 public:
  // Starts a kernel of `work_s` seconds at `rate` (<= 1); returns its finish.
  core::SimTime start(core::SimTime now, double work_s, double rate) {
    left_s_ = work_s;
    since_ = now;
    rate_ = rate;
    ++token_;
    return finish();
  }
  // The rate changes at `now`: the new finish time (the old one is stale).
  core::SimTime set_rate(core::SimTime now, double rate) {
    left_s_ -= (now - since_).seconds() * rate_;
    if (left_s_ < 0) left_s_ = 0;
    since_ = now;
    rate_ = rate;
    ++token_;
    return finish();
  }
  double rate() const { return rate_; }
  // Identifies the latest finish event: an older one is ignored.
  std::uint32_t token() const { return token_; }
  // When the running kernel ends at its current rate.
  core::SimTime finish() const { return since_ + core::SimTime::from_seconds(left_s_ / rate_); }
  // The soonest it can end if its rate rises to `fastest` (collectives end).
  core::SimTime earliest_finish(double fastest) const {
    return since_ + core::SimTime::from_seconds(left_s_ / fastest);
  }

 private:
  double left_s_ = 0;
  core::SimTime since_;
  double rate_ = 1.0;
  std::uint32_t token_ = 0;
};

}  // namespace pf::models::training
