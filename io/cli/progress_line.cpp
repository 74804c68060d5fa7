#include "io/cli/progress_line.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace pf::cli {

ProgressStyle progress_style(bool is_root, bool quiet, double log_every_s) {
  if (!is_root || quiet) return ProgressStyle::off;
  if (isatty(STDERR_FILENO) == 1) return ProgressStyle::redraw;
  return log_every_s > 0 ? ProgressStyle::log : ProgressStyle::off;
}

ProgressLine::ProgressLine(ProgressStyle style, core::SimTime end, int ranks, double log_every_s)
    : style_(style),
      end_(end),
      ranks_(ranks),
      interval_(style == ProgressStyle::log ? std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                  std::chrono::duration<double>(log_every_s))
                                            : std::chrono::milliseconds(500)),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

void ProgressLine::finish() {
  if (drawn_ && style_ == ProgressStyle::redraw) std::fputs("\n", stderr);
  drawn_ = false;
}

std::function<void(core::SimTime, std::uint64_t)> ProgressLine::callback() {
  if (!enabled()) return {};
  return [this](core::SimTime now, std::uint64_t committed) { draw(now, committed, -1); };
}

std::function<void(core::SimTime, std::uint64_t, double)> ProgressLine::callback_with_fraction() {
  if (!enabled()) return {};
  return [this](core::SimTime now, std::uint64_t committed, double fraction) { draw(now, committed, fraction); };
}

void ProgressLine::draw(core::SimTime now, std::uint64_t committed, double fraction) {
  const auto t = std::chrono::steady_clock::now();
  if (t - last_draw_ < interval_) return;
  last_draw_ = t;
  const double elapsed = std::chrono::duration<double>(t - start_).count();
  const double rate = static_cast<double>(committed) * ranks_ / elapsed;
  // A terminal line is redrawn in place; a log gets one complete line each time.
  const char* lead = style_ == ProgressStyle::redraw ? "\r" : "";
  const char* tail = style_ == ProgressStyle::redraw ? "   " : "\n";
  if (fraction < 0 && !end_.is_infinite() && end_ > core::SimTime::zero()) fraction = now.us() / end_.us();
  // Below 0.1 % the rate of progress is not yet a basis for an estimate.
  if (fraction < 0.001) {
    std::fprintf(stderr, "%s[preflight] t=%.3f us  %.2f M events/s  %.0f s elapsed%s", lead, now.us(), rate / 1e6,
                 elapsed, tail);
  } else {
    const double done = std::min(fraction, 1.0);
    const double eta = elapsed * (1 - done) / done;
    std::fprintf(stderr, "%s[preflight] t=%.3f us (%4.1f%%)  %.2f M events/s  ETA %.0f s%s", lead, now.us(),
                 100 * done, rate / 1e6, eta, tail);
  }
  if (style_ == ProgressStyle::log) std::fflush(stderr);
  drawn_ = true;
}

}  // namespace pf::cli
