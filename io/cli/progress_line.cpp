#include "io/cli/progress_line.h"

#include <unistd.h>

#include <cstdio>

namespace pf::cli {

bool progress_wanted(bool is_root, bool quiet) { return is_root && !quiet && isatty(STDERR_FILENO) == 1; }

ProgressLine::ProgressLine(bool enabled, core::SimTime end, int ranks)
    : enabled_(enabled), end_(end), ranks_(ranks), start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

void ProgressLine::finish() {
  if (drawn_) std::fputs("\n", stderr);
  drawn_ = false;
}

std::function<void(core::SimTime, std::uint64_t)> ProgressLine::callback() {
  if (!enabled_) return {};
  return [this](core::SimTime now, std::uint64_t committed) { draw(now, committed); };
}

void ProgressLine::draw(core::SimTime now, std::uint64_t committed) {
  const auto t = std::chrono::steady_clock::now();
  if (t - last_draw_ < std::chrono::milliseconds(500)) return;
  last_draw_ = t;
  const double elapsed = std::chrono::duration<double>(t - start_).count();
  const double rate = static_cast<double>(committed) * ranks_ / elapsed;
  if (end_.is_infinite() || end_ <= core::SimTime::zero()) {
    std::fprintf(stderr, "\r[preflight] t=%.3f us  %.2f M events/s  %.0f s elapsed   ", now.us(), rate / 1e6, elapsed);
  } else {
    const double done = now.us() / end_.us();
    const double eta = done > 0 ? elapsed * (1 - done) / done : 0;
    std::fprintf(stderr, "\r[preflight] t=%.3f us (%4.1f%%)  %.2f M events/s  ETA %.0f s   ", now.us(), 100 * done,
                 rate / 1e6, eta);
  }
  drawn_ = true;
}

}  // namespace pf::cli
