// The windows a K-rank run would take, replayed inside a one-rank run.
//
// Why this is exact. In window mode a run on K ranks commits, in window w,
// every event whose time lies in [B(w-1), B(w)), where B(w) is the minimum
// over pending events e of (e.time + lookahead class of e's LP) at the end of
// window w-1 (core/window_sync.cpp; remote events sent in a window all lie at
// or after its bound). The set of events, their times and LPs are the same on
// any rank count (the engine is deterministic), and when a one-rank run is
// about to commit its first event at or after B(w-1), the events still pending
// are exactly those pending at the end of window w-1 on K ranks. So watching a
// one-rank run's pushes and commits, with K ranks' LP placement and
// lookaheads, gives K ranks' window count and each window's events per rank
// without running K ranks.
//
// Per window and virtual rank it counts the events committed, the events sent
// to other ranks, and the MPI messages (one per destination rank with at least
// one event, as window_sync.cpp batches them); a run's figures are the sums
// over windows of the busiest rank's count, the critical path of a K-rank run.
//
//   WindowProjection p(VirtualRanks{...});    // one per K
//   engine.observe(&projections);             // a WindowProjections set
#pragma once

#include <array>
#include <cstdint>
#include <queue>
#include <utility>
#include <vector>

#include "core/event.h"
#include "core/lookahead_queue.h"
#include "core/promise_board.h"
#include "core/sim_time.h"

namespace pf::core {

// A placement of LPs on K ranks and the lookaheads a K-rank engine would get
// (the same EngineConfig fields: lp_lookahead empty means `lookahead` for all).
struct VirtualRanks {
  int ranks = 1;
  std::vector<int> lp_rank;
  SimTime lookahead;
  std::vector<SimTime> lp_lookahead;
};

// What the K-rank run would do, summed over its windows.
struct ProjectedWindows {
  int ranks = 0;
  std::uint64_t windows = 0;            // windows that commit events (the engine's count less its final round)
  std::uint64_t events = 0;             // committed, all ranks
  std::uint64_t remote_events = 0;      // sent to an LP on another rank
  std::uint64_t messages = 0;           // MPI messages: (window, sender, receiver) with >= 1 event
  std::uint64_t max_events_sum = 0;     // sum over windows of the busiest rank's events
  std::uint64_t max_messages_sum = 0;   // sum over windows of the largest per-rank messages sent + received
  std::uint64_t busiest_rank_events = 0;  // the largest per-rank total (load balance over the whole run)
  // What bounds the windows: the lookahead classes K ranks' LPs fall into
  // (core/lookahead_queue.h) and, per class, the windows whose bound came from
  // one of its pending events (the earliest such class on ties).
  int classes = 1;
  std::array<SimTime, kMaxLookaheadClasses> class_lookahead{};
  std::array<std::uint64_t, kMaxLookaheadClasses> bound_by{};
  std::uint64_t bound_by_promise = 0;  // windows whose bound came from an LP's promise (core/promise_board.h)
};

class WindowProjection {
 public:
  explicit WindowProjection(VirtualRanks ranks);

  // An event entered the queue (scheduled or sent), with its Event::flags
  // (kQuietEvent, kSilentEvent).
  void pushed(SimTime time, LpId dst, std::uint8_t flags);
  // `src` sent an event to `dst` (called with pushed(), from inside a handler).
  void sent(LpId src, LpId dst);
  // The next event to commit, before its handler runs (it is still pending).
  void committing(SimTime time, LpId dst, std::uint8_t flags);
  // The LP stated a promise (LpContext::promise).
  void promised(LpId lp, SimTime at) { promises_.promise(lp, at); }
  // The LP deferred its promise (LpContext::defer_promise); `source` gives
  // the current one where it would bound a window, as the K-rank engine asks.
  void deferred(LpId lp, PromiseSource* source) {
    promises_.mark_stale(lp);
    source_ = source;
  }
  // Closes the last window; the figures are final after this.
  const ProjectedWindows& finish();
  const ProjectedWindows& figures() const { return out_; }

 private:
  // The bound over what is pending and the class it comes from (-1: a promise).
  std::pair<SimTime, int> bound() const;
  void close_window();

  std::vector<int> lp_rank_;
  std::vector<std::uint8_t> class_of_;
  std::array<SimTime, kMaxLookaheadClasses> lookahead_{};
  int classes_ = 1;
  // Per lookahead class, the times of its pending events: the bound needs the
  // earliest of each, and a commit removes its class's earliest.
  using MinHeap = std::priority_queue<std::int64_t, std::vector<std::int64_t>, std::greater<>>;
  std::array<MinHeap, kMaxLookaheadClasses> pending_;
  // Quiet and silent events (more than one rank only, as the engine separates
  // them): their times, and each LP's promise while it has a quiet one pending.
  bool separate_quiet_ = false;
  MinHeap quiet_;
  mutable PromiseBoard promises_;  // settles its changed LPs when bound() asks
  PromiseSource* source_ = nullptr;  // restates deferred promises (deferred())
  SimTime min_lookahead_;

  bool open_ = false;
  SimTime bound_;
  std::vector<std::uint32_t> events_;   // per rank, this window
  std::vector<std::uint32_t> messages_; // per rank, this window (sent + received)
  std::vector<std::uint64_t> rank_total_;
  std::vector<int> touched_;            // ranks with events_ > 0 this window
  std::vector<std::uint64_t> pairs_;    // sender * ranks + receiver, one per remote event this window
  ProjectedWindows out_;
};

// The projections of one run, fed by the engine (Engine::observe) on one
// rank. The cost of watching is estimated by timing one call in 64 (the
// run's wall time less this is what the unobserved run would take).
class WindowProjections {
 public:
  WindowProjections();
  void add(VirtualRanks ranks) { each_.emplace_back(std::move(ranks)); }
  bool empty() const { return each_.empty(); }

  void pushed(const Event& event) {
    if (sample()) [[unlikely]] return timed_pushed(event);
    for (WindowProjection& p : each_) {
      p.pushed(event.time, event.dst, event.flags);
      p.sent(event.src, event.dst);
    }
  }
  void committing(const Event& event) {
    if (sample()) [[unlikely]] return timed_committing(event);
    for (WindowProjection& p : each_) p.committing(event.time, event.dst, event.flags);
  }
  void promised(LpId lp, SimTime at) {
    for (WindowProjection& p : each_) p.promised(lp, at);
  }
  void deferred(LpId lp, PromiseSource* source) {
    for (WindowProjection& p : each_) p.deferred(lp, source);
  }
  std::vector<ProjectedWindows> finish();
  // Estimated seconds spent in this class during the run: the sampled
  // calls' time, less the clock's own cost, times the sampling interval.
  double overhead_s() const;

 private:
  static constexpr std::uint32_t kSampleEvery = 64;
  bool sample() { return (++calls_ & (kSampleEvery - 1)) == 0; }
  void timed_pushed(const Event& event);
  void timed_committing(const Event& event);

  std::vector<WindowProjection> each_;
  std::uint32_t calls_ = 0;
  std::uint64_t samples_ = 0;
  double sampled_s_ = 0;
  double clock_s_ = 0;  // one pair of clock reads, measured at construction
};

}  // namespace pf::core
