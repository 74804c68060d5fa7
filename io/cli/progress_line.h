// Progress on stderr for long runs (io/cli/README.md), rank 0 only: a line
// redrawn in place at most twice a second when stderr is a terminal; when it
// is not (a batch job's log), nothing, unless --progress-every asks for one
// plain line every so many seconds. --quiet turns both off.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include "core/sim_time.h"

namespace pf::cli {

enum class ProgressStyle { off, redraw, log };

class ProgressLine {
 public:
  // `ranks` scales rank 0's event count to an estimate of the global rate;
  // `log_every_s` is the interval of the log style.
  ProgressLine(ProgressStyle style, core::SimTime end, int ranks, double log_every_s = 0);
  ~ProgressLine() { finish(); }
  void finish();  // ends the line if anything was drawn
  std::function<void(core::SimTime, std::uint64_t)> callback();
  // For runs whose end is unknown in simulated time but whose model says how
  // far it has got (0..1): the line shows that percentage and an ETA from it.
  std::function<void(core::SimTime, std::uint64_t, double)> callback_with_fraction();
  bool enabled() const { return style_ != ProgressStyle::off; }

 private:
  // fraction < 0: unknown (from the end time if there is one).
  void draw(core::SimTime now, std::uint64_t committed, double fraction);

  ProgressStyle style_;
  core::SimTime end_;
  int ranks_;
  std::chrono::steady_clock::duration interval_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

// Rank 0 and not --quiet: redraw on a terminal; otherwise a log line every
// `log_every_s` seconds if that is positive, else off.
ProgressStyle progress_style(bool is_root, bool quiet, double log_every_s);

}  // namespace pf::cli
