// The conservative parallel discrete-event engine.
//
// A model is a set of logical processes (LPs) with dense ids 0..N-1, each owned
// by one MPI rank. The model's LPs talk only through events:
//
//     engine.send(at, dst_lp, payload)   // from inside a handler; the kind is
//                                        // the payload's type (event_kind.h)
//     engine.now(), engine.current_lp()
//
// and the engine calls back one function, non-virtually:
//
//     void Model::on_event(Engine&, const Event&)   // switch on event.kind:
//                                                   // case kind_of<Payload>
//
// Events commit in (time, source LP, source sequence) order on every LP, so a
// run gives the same results on any number of ranks. Ranks synchronise
// conservatively by lookahead L: an event sent to another rank must be at least
// L after the sender's now (checked; a violation names the LP). A model may also
// give each LP its own lookahead (EngineConfig::lp_lookahead), the soonest an
// event there can lead to an event on another rank. Two modes:
//   window        YAWNS: one reduction finds the global next-event time T and
//                 the bound B = min over pending events of (time + its LP's
//                 lookahead), T + L without per-LP lookaheads; every rank then
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

#include <chrono>
#include <concepts>
#include <functional>
#include <string>
#include <vector>

#include "core/communicator.h"
#include "core/engine_stats.h"
#include "core/error.h"
#include "core/event.h"
#include "core/event_kind.h"
#include "core/event_queue.h"
#include "core/lookahead_queue.h"

namespace pf::core {

enum class Sync { window, null_message };
const char* to_string(Sync sync);

struct EngineConfig {
  SimTime lookahead;                  // global minimum; must be > 0 when ranks > 1
  SimTime end = SimTime::infinity();  // events at or after `end` are not committed
  Sync sync = Sync::window;
  // Optional per rank-pair lookahead (ranks*ranks, row = sender). Empty: every
  // pair uses `lookahead`. SimTime::infinity() marks pairs with no channel.
  std::vector<SimTime> channel_lookahead;
  // Optional per LP (lp_count entries): no event handled at this LP leads,
  // directly or through other LPs of its rank, to an event on another rank
  // sooner than this after it. Lets a window (or a null message's promise)
  // reach min over pending events of (time + its LP's lookahead) instead of
  // (earliest time + `lookahead`): LPs far from every cut link rarely bind.
  // Empty: every LP uses `lookahead`. Values are grouped into at most
  // kMaxLookaheadClasses classes, each rounded down (core/lookahead_queue.h).
  // The model vouches for the values; a remote send that breaks the promise
  // made from them is reported as a lookahead violation, never run.
  std::vector<SimTime> lp_lookahead;
  // Called on this rank every kProgressEvents committed events with the local
  // simulated time and committed count (for a progress line; may be empty).
  std::function<void(SimTime now, std::uint64_t committed)> progress;
};

inline constexpr std::uint64_t kProgressEvents = 1 << 16;

// A model that can tell when this rank's share of the work is done (see the
// header comment): lets null_message runs end without an end time.
template <class Model>
concept ReportsFinished = requires(const Model& model) {
  { model.finished() } -> std::convertible_to<bool>;
};

class Engine {
 public:
  struct SyncState;  // opaque: MPI requests, buffers and clocks (core/sync_state.h)

  // lp_rank[i] is the MPI rank (within `comm`) that owns LP i.
  Engine(Communicator comm, std::vector<int> lp_rank, EngineConfig config);

  // ---- the LP API ----
  SimTime now() const { return now_; }
  LpId current_lp() const { return current_lp_; }
  // The event's kind is kind_of<Payload> (core/event_kind.h): one payload
  // type per kind of event.
  template <class Payload>
  void send(SimTime at, LpId dst, const Payload& payload);

  // Before run(): an LP's first events, sent by the LP to itself. Only the
  // owning rank may call it, in a deterministic order per LP.
  template <class Payload>
  void schedule_initial(SimTime at, LpId lp, const Payload& payload);

  // Runs to `end` (or until no events remain anywhere, or, in null_message
  // mode, until every rank's model reports finished()). Collective. Throws
  // ConfigError for a null_message run with no end whose model lacks finished().
  template <class Model>
  void run(Model& model);

  // Stops the run with an error (a model contract broken). The run ends at
  // the next synchronisation on every rank with this message. Handlers may
  // also throw pf::Error; the engine turns that into fail().
  void fail(const std::string& message);

  // ---- wiring and results ----
  bool is_local(LpId lp) const { return lp_rank_[lp] == rank_; }
  int rank() const { return rank_; }
  int ranks() const { return comm_.size(); }
  std::size_t lp_count() const { return lp_rank_.size(); }
  const EngineConfig& config() const { return config_; }
  const EngineStats& local_stats() const { return stats_; }
  EngineStats global_stats() const;           // collective
  // Order-sensitive hash of every committed (LP, time, source), combined over
  // LPs and ranks: equal digests mean the same events in the same order. Collective.
  std::uint64_t global_digest() const;

 private:
  template <class Model>
  void process_until(Model& model, SimTime bound);
  void commit_digest(const Event& event);
  void reject_send(SimTime at, LpId dst, const char* why);
  void send_remote(const Event& event, int dst_rank);
  SimTime channel_lookahead(int from, int to) const;
  void configure_lookahead_classes();

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

  Communicator comm_;
  std::vector<int> lp_rank_;
  EngineConfig config_;
  int rank_;

  LookaheadQueue queue_;
  // Per destination rank: the earliest time a remote event may carry, i.e.
  // what this rank last told it (window: the window's bound; null message:
  // the last promise). Checked on every remote send.
  std::vector<SimTime> send_floor_;
  SimTime now_;
  LpId current_lp_ = 0;
  std::vector<std::uint64_t> send_seq_;   // per LP (global ids; only local ones move)
  std::vector<std::uint64_t> digest_;     // per LP
  std::vector<std::vector<Event>> outbox_;  // per destination rank
  EngineStats stats_;

  // An error found mid-window (a lookahead violation) stops this rank at once
  // and is raised on every rank at the next synchronisation, so no rank hangs.
  bool stop_ = false;
  std::string error_;

  struct SyncStateDeleter { void operator()(SyncState*) const; };
  std::unique_ptr<SyncState, SyncStateDeleter> sync_;
};

// ---------------------------------------------------------------------------

template <class Payload>
inline void Engine::send(SimTime at, LpId dst, const Payload& payload) {
  Event event;
  event.time = at;
  event.dst = dst;
  event.src = current_lp_;
  event.seq = send_seq_[current_lp_]++;
  event.kind = kind_of<Payload>;
  event.set(payload);
  if (at < now_) [[unlikely]] {
    reject_send(at, dst, "into the past");
    return;
  }
  const int dst_rank = lp_rank_[dst];
  if (dst_rank == rank_) {
    queue_.push(event);
  } else {
    send_remote(event, dst_rank);
  }
}

template <class Payload>
inline void Engine::schedule_initial(SimTime at, LpId lp, const Payload& payload) {
  if (lp >= lp_rank_.size() || !is_local(lp))
    throw SimulationError("schedule_initial: LP " + std::to_string(lp) + " is not owned by rank " +
                          std::to_string(rank_));
  LpId saved = current_lp_;
  current_lp_ = lp;
  send(at, lp, payload);
  current_lp_ = saved;
}

template <class Model>
inline void Engine::process_until(Model& model, SimTime bound) {
  Event event;
  while (queue_.top_time() < bound) {
    queue_.begin_pop(event);
    now_ = event.time;
    current_lp_ = event.dst;
    commit_digest(event);
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

template <class Model>
void Engine::run(Model& model) {
  check_end_is_reachable(ReportsFinished<Model>);
  const auto start = std::chrono::steady_clock::now();
  if (ranks() == 1) {
    guarded_process(model, config_.end);
    raise_pending_error();
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

inline void Engine::commit_digest(const Event& event) {
  // splitmix64's finaliser: cheap, and order-sensitive when folded.
  std::uint64_t x = digest_[event.dst] ^ (static_cast<std::uint64_t>(event.time.ps) * 0x9E3779B97F4A7C15ull + event.src);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  digest_[event.dst] = x ^ (x >> 31);
}

}  // namespace pf::core
