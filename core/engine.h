// The conservative parallel discrete-event engine.
//
// A model is a set of logical processes (LPs) with dense ids 0..N-1, each owned
// by one MPI rank. The model's LPs talk only through events, sent from inside
// a handler through the LpContext the engine passes (core/lp_context.h):
//
//     engine.send(at, dst_lp, payload)   // the kind is the payload's type (event_kind.h)
//     engine.now(), engine.current_lp()
//
// and the engine calls back one function, non-virtually:
//
//     void Model::on_event(LpContext&, const Event&)   // switch on event.kind:
//                                                      // case kind_of<Payload>
//
// Events commit in (time, source LP, source sequence) order on every LP, so a
// run gives the same results on any number of ranks. Ranks synchronise
// conservatively by lookahead L: an event sent to another rank must be at least
// L after the sender's now (checked; a violation names the LP). A model may also
// give each LP its own lookahead (EngineConfig::lp_lookahead), the soonest an
// event there can lead to an event on another rank, and each LP may state, as
// it goes, when it will next send anything (LpContext::send_quiet and
// promise: dynamic lookahead, core/promise_board.h). Two modes:
//   window        YAWNS: one reduction finds the global next-event time T and
//                 the bound B = min over pending events of (time + its LP's
//                 lookahead), T + L without per-LP lookaheads, with quiet
//                 events answered for by their LPs' promises; every rank then
//                 runs everything before B, exchanges, repeats.
//   null_message  Chandy-Misra-Bryant: per-neighbour channel clocks carried on
//                 nonblocking messages; a rank runs what its clocks make safe.
// On one rank both reduce to the sequential loop.
//
// Ending a run. A run ends at `end`, or when no events remain anywhere
// (window mode, one rank). CMB cannot see the second: once every queue is
// empty its clocks still climb one lookahead per exchange, so null_message
// mode needs a finite end, unless the model says when it is done:
//
//     bool Model::finished() const   // optional; O(1), checked once per batch
//
// finished() means every LP of this rank that drives the simulation has done
// its work, and it stays true once true. A finished rank keeps running its
// events (its LPs may still forward other ranks' traffic); when every rank's
// model reports finished, the null_message run stops (an MPI_Ibarrier posted
// by each rank as it finishes, polled from then on instead of blocking), and
// events still queued are not committed. So null_message mode accepts
// end = infinity exactly when the model has finished(); without it the run
// is refused with a ConfigError, as before. (A rank whose finished() never
// comes true and whose queues drain, e.g. a deadlocked program, ends the run
// once every rank is idle and no event is in flight: run() returns with the
// model unfinished, and the model says what is stuck.)
// Window mode and one rank ignore finished() and run to `end` or until no
// events remain.
#pragma once

#include <algorithm>
#include <chrono>
#include <concepts>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/communicator.h"
#include "core/engine_stats.h"
#include "core/error.h"
#include "core/event.h"
#include "core/engine_config.h"
#include "core/lp_context.h"

namespace pf::core {

inline constexpr std::uint64_t kProgressEvents = 1 << 16;

// A model that can tell when this rank's share of the work is done (see the
// header comment): lets null_message runs end without an end time.
template <class Model>
concept ReportsFinished = requires(const Model& model) {
  { model.finished() } -> std::convertible_to<bool>;
};

// The driver: owns the communicator and the synchronisation state, runs a
// model. Built in pf_engine (MPI); the LP API it inherits is pf_core's.
class Engine : public LpContext {
 public:
  struct SyncState;  // opaque: MPI requests, buffers and clocks (core/sync_state.h)

  // lp_rank[i] is the MPI rank (within `comm`) that owns LP i.
  Engine(Communicator comm, std::vector<int> lp_rank, EngineConfig config);

  // Runs to `end` (or until no events remain anywhere, or, in null_message
  // mode, until every rank's model reports finished()). Collective. Throws
  // ConfigError for a null_message run with no end whose model lacks finished().
  template <class Model>
  void run(Model& model);

  // A one-rank run replays other rank counts' windows into `projections`
  // (core/window_projection.h); call before the model schedules its first
  // events. Throws ConfigError on more than one rank (the replay needs every
  // event in one queue).
  void observe(WindowProjections* projections);

  // ---- results ----
  // EngineConfig::record_windows: this rank's windows, in order, and every
  // rank's, in rank order (collective; the same window count on every rank).
  const std::vector<WindowRecord>& windows() const { return windows_; }
  std::vector<std::vector<WindowRecord>> global_windows() const;
  const EngineConfig& config() const { return config_; }
  EngineStats global_stats() const;           // collective
  // Order-sensitive hash of every committed (LP, time, source), combined over
  // LPs and ranks: equal digests mean the same events in the same order. Collective.
  std::uint64_t global_digest() const;

 private:
  template <class Model>
  void process_until(Model& model, SimTime bound);
  SimTime channel_lookahead(int from, int to) const;
  void configure_lookahead_classes();
  void configure_promises();
  // The promises' part of a bound (core/promise_board.h), given the earliest
  // time any LP of the run can next handle an event and the bound from the
  // events that are not quiet (below which a promise matters).
  SimTime promised_bound(SimTime earliest, SimTime others) {
    return std::max(settled_earliest_output(others), earliest + min_lookahead_);
  }

  // Synchronisation: each returns the bound below which events are safe, or
  // SimTime::zero() when the run is over everywhere. window_sync.cpp and
  // null_message_sync.cpp.
  SimTime next_window_bound();
  // `finished`: this rank's model reports finished() (always false for a model
  // without it; then the run ends only at `end`).
  void start_null_message(bool model_reports_finished);
  SimTime next_null_message_bound(bool finished);
  void finish_null_message();
  void complete_finish_barrier();
  bool quiescent();
  void finish_quiescence_rounds();
  void check_end_is_reachable(bool model_reports_finished) const;
  template <class Model>
  bool model_finished(const Model& model);
  void deliver(const Event* events, std::size_t count);
  void raise_pending_error();
  [[noreturn]] void fail_collectively();
  template <class Model>
  void guarded_process(Model& model, SimTime bound);
  template <class Model>
  void run_recorded_windows(Model& model);

  Communicator comm_;
  EngineConfig config_;
  SimTime min_lookahead_;  // the smallest static lookahead of any LP
  std::vector<WindowRecord> windows_;

  struct SyncStateDeleter { void operator()(SyncState*) const; };
  std::unique_ptr<SyncState, SyncStateDeleter> sync_;
};

// ---------------------------------------------------------------------------

template <class Model>
inline void Engine::process_until(Model& model, SimTime bound) {
  Event event;
  while (queue_.top_time() < bound) {
    queue_.begin_pop(event);
    now_ = event.time;
    current_lp_ = event.dst;
    handling_quiet_ = (event.flags & kQuietEvent) != 0;
    handling_silent_ = (event.flags & kSilentEvent) != 0;
    if (handling_quiet_) promises_.quiet_popped(event.dst);
    commit_digest(event);
    if (observer_) [[unlikely]] observer_->committing(event);
    if ((++stats_.committed_events & (kProgressEvents - 1)) == 0 && config_.progress) [[unlikely]]
      config_.progress(now_, stats_.committed_events);
    model.on_event(*this, event);
    queue_.end_pop();
    if (stop_) [[unlikely]] return;
  }
}

// An exception from a handler must not leave other ranks waiting in a
// collective: it becomes fail(), raised everywhere at the next synchronisation.
template <class Model>
void Engine::guarded_process(Model& model, SimTime bound) {
  try {
    process_until(model, bound);
  } catch (const std::exception& e) {
    fail(e.what());
  }
}

// finished() is model code like on_event: an exception from it stops the run
// the same way.
template <class Model>
bool Engine::model_finished(const Model& model) {
  if constexpr (ReportsFinished<Model>) {
    try {
      return static_cast<bool>(model.finished());
    } catch (const std::exception& e) {
      fail(e.what());
    }
  }
  return false;
}

// The window loop, timing each window's work and synchronisation.
template <class Model>
void Engine::run_recorded_windows(Model& model) {
  using Clock = std::chrono::steady_clock;
  const auto ns = [](Clock::duration d) {
    return static_cast<std::uint32_t>(std::min<std::int64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(d).count(), 0xFFFFFFFF));
  };
  SimTime bound = next_window_bound();
  while (bound > SimTime::zero()) {
    const EngineStats before = stats_;
    const auto start = Clock::now();
    guarded_process(model, bound);
    const auto worked = Clock::now();
    const std::uint64_t remote = stats_.remote_events - before.remote_events;
    bound = next_window_bound();
    WindowRecord w;
    w.events = static_cast<std::uint32_t>(stats_.committed_events - before.committed_events);
    w.remote_events = static_cast<std::uint32_t>(remote);
    w.messages = static_cast<std::uint32_t>(stats_.messages - before.messages);
    w.busy_ns = ns(worked - start);
    w.sync_ns = ns(Clock::now() - worked);
    windows_.push_back(w);
  }
}

template <class Model>
void Engine::run(Model& model) {
  check_end_is_reachable(ReportsFinished<Model>);
  const auto start = std::chrono::steady_clock::now();
  if (ranks() == 1) {
    guarded_process(model, config_.end);
    raise_pending_error();
  } else if (config_.sync == Sync::window && config_.record_windows) {
    run_recorded_windows(model);
  } else if (config_.sync == Sync::window) {
    for (SimTime bound = next_window_bound(); bound > SimTime::zero(); bound = next_window_bound())
      guarded_process(model, bound);
  } else {
    start_null_message(ReportsFinished<Model>);
    for (SimTime bound = next_null_message_bound(model_finished(model)); bound > SimTime::zero();
         bound = next_null_message_bound(model_finished(model)))
      guarded_process(model, bound);
    finish_null_message();
  }
  stats_.peak_pending = queue_.peak_size();
  stats_.queue_bytes = queue_.memory_bytes();
  stats_.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace pf::core
