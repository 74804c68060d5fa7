// A one-line progress display on stderr for long runs (SPEC section 2): rank 0
// only, redrawn at most twice a second, off when stderr is not a terminal or
// the user asked for quiet.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include "core/sim_time.h"

namespace pf::cli {

class ProgressLine {
 public:
  // `ranks` scales rank 0's event count to an estimate of the global rate.
  ProgressLine(bool enabled, core::SimTime end, int ranks);
  ~ProgressLine() { finish(); }
  void finish();  // ends the line if anything was drawn
  std::function<void(core::SimTime, std::uint64_t)> callback();
  bool enabled() const { return enabled_; }

 private:
  void draw(core::SimTime now, std::uint64_t committed);

  bool enabled_;
  core::SimTime end_;
  int ranks_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

// True when progress should be shown: rank 0, stderr a terminal, not --quiet.
bool progress_wanted(bool is_root, bool quiet);

}  // namespace pf::cli
