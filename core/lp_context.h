// What an LP's handler sees of the engine: the simulated clock, its own id,
// and sending events. Models are written against this class alone:
//
//     void Model::on_event(LpContext& engine, const Event& event)
//     engine.send(at, dst_lp, payload)   // the kind is the payload's type (event_kind.h)
//     engine.now(), engine.current_lp(), engine.is_local(lp)
//     engine.send_quiet(at, payload), engine.promise(at)   // dynamic lookahead (core/promise_board.h)
//
// core::Engine (core/engine.h) derives from it and adds what a handler never
// touches: the communicator, MPI synchronisation and run(). This class and its
// .cpp need no MPI, so a library of models links pf_core without MPI; only
// what constructs and runs an Engine (io/run, the tests) links pf_engine.
#pragma once

#include <string>
#include <vector>

#include "core/engine_stats.h"
#include "core/error.h"
#include "core/event.h"
#include "core/event_kind.h"
#include "core/lookahead_queue.h"
#include "core/promise_board.h"
#include "core/window_projection.h"

namespace pf::core {

class LpContext {
 public:
  SimTime now() const { return now_; }
  LpId current_lp() const { return current_lp_; }
  // The event's kind is kind_of<Payload> (core/event_kind.h): one payload
  // type per kind of event.
  template <class Payload>
  void send(SimTime at, LpId dst, const Payload& payload);

  // An event to the current LP itself that the LP's promise answers for
  // (core/promise_board.h): handling it, and whatever it schedules, sends
  // nothing to another LP before the promise the LP states after each event.
  template <class Payload>
  void send_quiet(SimTime at, const Payload& payload) {
    send_quiet_to(at, current_lp_, payload);
  }
  // The same for another LP of this rank whose state the model knows (a
  // server's GPUs): the model then states that LP's promise (promise_for).
  template <class Payload>
  void send_quiet_to(SimTime at, LpId dst, const Payload& payload);
  // An event whose handling sends nothing, not even to its own LP, and moves
  // none of that LP's later sends sooner (it may delay them: a packet queued
  // at a port): it bounds no window, on whichever rank it lands
  // (core/promise_board.h). Any rank. A send, or a lowered promise, while
  // handling one stops the run with an error. (Nothing it scheduled would be
  // in the bound already taken for the window it is handled in.)
  template <class Payload>
  void send_silent(SimTime at, LpId dst, const Payload& payload);
  // The current LP's promise: with no event from another LP, handling its
  // quiet events sends nothing to another LP before time `at` (the handling
  // time; the events sent then arrive later still). Stated at the end of each
  // event the LP handles while it has a quiet event pending; checked on every send.
  void promise(SimTime at) { promise_for(current_lp_, at); }
  // Another local LP's promise, after sending it a quiet event.
  void promise_for(LpId lp, SimTime at) {
    if (handling_silent_ && at < promises_.promise_of(lp)) [[unlikely]] reject_lowered_promise(at, lp);
    promises_.promise(lp, at);
    if (observer_) [[unlikely]] observer_->promised(lp, at);
  }
  // Instead of promise(), after a quiet event: the current LP's last promise
  // still holds (it covered every state its quiet events lead to), so it may
  // stand until it would bound a window; the engine then asks `source` for
  // the current one (core/promise_board.h, PromiseSource); a run projecting
  // other rank counts' windows does the same in its projections. False where
  // the model must state it now: no source set.
  bool defer_promise() {
    if (promise_source_ == nullptr) return false;
    promises_.mark_stale(current_lp_);
    if (observer_) [[unlikely]] observer_->deferred(current_lp_, promise_source_);
    return true;
  }
  void set_promise_source(PromiseSource* source) { promise_source_ = source; }

  // Whether promises bound anything: more than one rank, or a one-rank run
  // projecting other rank counts' windows. A model may skip computing them otherwise.
  bool wants_promises() const { return ranks_ > 1 || observer_ != nullptr; }

  // Before run(): an LP's first events, sent by the LP to itself. Only the
  // owning rank may call it, in a deterministic order per LP.
  template <class Payload>
  void schedule_initial(SimTime at, LpId lp, const Payload& payload);

  // Stops the run with an error (a model contract broken). The run ends at
  // the next synchronisation on every rank with this message. Handlers may
  // also throw pf::Error; the engine turns that into fail().
  void fail(const std::string& message);

  bool is_local(LpId lp) const { return lp_rank_[lp] == rank_; }
  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  std::size_t lp_count() const { return lp_rank_.size(); }
  const EngineStats& local_stats() const { return stats_; }

 protected:
  // lp_rank[i] is the rank that owns LP i (checked by the engine beforehand).
  LpContext(int rank, int ranks, std::vector<int> lp_rank);
  ~LpContext() = default;
  LpContext(const LpContext&) = delete;
  LpContext& operator=(const LpContext&) = delete;

  void commit_digest(const Event& event);

  std::vector<int> lp_rank_;
  int rank_;
  int ranks_;
  LookaheadQueue queue_;
  PromiseBoard promises_;
  PromiseSource* promise_source_ = nullptr;  // restates deferred promises (defer_promise)
  // The promises' minimum, deferred ones restated where they matter
  // (PromiseBoard::settled_earliest_output; `matters_below`: this rank's
  // bound from its other events).
  SimTime settled_earliest_output(SimTime matters_below) {
    return promises_.settled_earliest_output(matters_below, promise_source_);
  }
  bool handling_quiet_ = false;  // the event being handled is quiet: its sends must keep the LP's promise
  bool handling_silent_ = false;  // the event being handled is silent: it sends nothing
  // Per destination rank: the lookahead of the channel (infinity: none), and
  // the earliest time a remote event may carry, i.e. what this rank last told
  // it (window: the window's bound; null message: the last promise). The
  // engine sets both; every remote send is checked against them.
  std::vector<SimTime> lookahead_to_;
  std::vector<SimTime> send_floor_;
  SimTime now_;
  LpId current_lp_ = 0;
  std::vector<std::uint64_t> send_seq_;   // per LP (global ids; only local ones move)
  std::vector<std::uint64_t> digest_;     // per LP
  std::vector<std::vector<Event>> outbox_;  // per destination rank; slot 0 is the message header
  EngineStats stats_;
  // Set on a one-rank run that projects other rank counts' windows
  // (Engine::observe); null otherwise, which costs a predictable branch.
  WindowProjections* observer_ = nullptr;

  // An error found mid-window (a lookahead violation) stops this rank at once
  // and is raised on every rank at the next synchronisation, so no rank hangs.
  bool stop_ = false;
  std::string error_;

 private:
  void reject_send(SimTime at, LpId dst, const char* why);
  void reject_broken_promise(SimTime at, LpId dst);
  void reject_broken_silence(SimTime at, LpId dst);
  void reject_lowered_promise(SimTime at, LpId lp);
  template <class Payload>
  void route(SimTime at, LpId dst, const Payload& payload, std::uint8_t flags);
  // The next event the current LP sends (its sequence number taken), pushed
  // to this rank's queue written straight into its slot
  // (EventQueue::push_built), or built for another rank.
  template <class Payload>
  void push_built(SimTime at, LpId dst, const Payload& payload, std::uint8_t flags);
  template <class Payload>
  Event make_event(SimTime at, LpId dst, const Payload& payload, std::uint8_t flags);
  // Both write an event's fields here.
  template <class Payload>
  static void write_event(Event& e, SimTime at, LpId dst, LpId src, std::uint64_t seq, const Payload& payload,
                          std::uint8_t flags);
  void send_remote(const Event& event, int dst_rank);
};

// ---------------------------------------------------------------------------

template <class Payload>
[[gnu::always_inline]] inline void LpContext::write_event(Event& e, SimTime at, LpId dst, LpId src, std::uint64_t seq, const Payload& payload,
                                   std::uint8_t flags) {
  e.time = at;
  e.dst = dst;
  e.src = src;
  e.seq = seq;
  e.kind = kind_of<Payload>;
  e.flags = flags;
  e.set(payload);
}

template <class Payload>
inline Event LpContext::make_event(SimTime at, LpId dst, const Payload& payload, std::uint8_t flags) {
  Event event;
  write_event(event, at, dst, current_lp_, send_seq_[current_lp_]++, payload, flags);
  return event;
}

template <class Payload>
inline void LpContext::send(SimTime at, LpId dst, const Payload& payload) {
  route(at, dst, payload, 0);
}

template <class Payload>
inline void LpContext::send_silent(SimTime at, LpId dst, const Payload& payload) {
  route(at, dst, payload, kSilentEvent);
}

template <class Payload>
inline void LpContext::route(SimTime at, LpId dst, const Payload& payload, std::uint8_t flags) {
  if (at < now_) [[unlikely]] {
    reject_send(at, dst, "into the past");
    return;
  }
  if (handling_quiet_ && dst != current_lp_ && now_ < promises_.promise_of(current_lp_)) [[unlikely]] {
    reject_broken_promise(at, dst);
    return;
  }
  if (handling_silent_) [[unlikely]] {
    reject_broken_silence(at, dst);
    return;
  }
  const int dst_rank = lp_rank_[dst];
  if (dst_rank == rank_) {
    push_built(at, dst, payload, flags);
  } else {
    send_remote(make_event(at, dst, payload, flags), dst_rank);
  }
}

template <class Payload>
[[gnu::always_inline]] inline void LpContext::push_built(SimTime at, LpId dst, const Payload& payload,
                                                         std::uint8_t flags) {
  const LpId src = current_lp_;
  const std::uint64_t seq = send_seq_[src]++;
  const Event& event = queue_.push_built(dst, flags, at, (std::uint64_t{src} << kSeqBits) | seq,
                                         [&](Event& e) { write_event(e, at, dst, src, seq, payload, flags); });
  if (observer_) [[unlikely]] observer_->pushed(event);
}

template <class Payload>
inline void LpContext::send_quiet_to(SimTime at, LpId dst, const Payload& payload) {
  if (at < now_) [[unlikely]] {
    reject_send(at, dst, "into the past");
    return;
  }
  if (lp_rank_[dst] != rank_) [[unlikely]] {
    reject_send(at, dst, "as a quiet event to another rank (quiet events stay on their rank)");
    return;
  }
  if (handling_silent_) [[unlikely]] {
    reject_broken_silence(at, dst);
    return;
  }
  // To another LP it is output, counted at its own time (the receiver can do
  // nothing with it sooner; its promise is stated again on receipt), which
  // holds only where the receiver is no nearer another rank than the sender.
  if (dst != current_lp_) {
    if (queue_.lookahead_of(dst) < queue_.lookahead_of(current_lp_)) [[unlikely]] {
      reject_send(at, dst, "as a quiet event to an LP with a smaller lookahead than the sender's");
      return;
    }
    if (handling_quiet_ && at < promises_.promise_of(current_lp_)) [[unlikely]] {
      reject_broken_promise(at, dst);
      return;
    }
  }
  promises_.quiet_pushed(dst);
  push_built(at, dst, payload, kQuietEvent);
}

template <class Payload>
inline void LpContext::schedule_initial(SimTime at, LpId lp, const Payload& payload) {
  if (lp >= lp_rank_.size() || !is_local(lp))
    throw SimulationError("schedule_initial: LP " + std::to_string(lp) + " is not owned by rank " +
                          std::to_string(rank_));
  LpId saved = current_lp_;
  current_lp_ = lp;
  send(at, lp, payload);
  current_lp_ = saved;
}

inline void LpContext::commit_digest(const Event& event) {
  // splitmix64's finaliser: cheap, and order-sensitive when folded.
  std::uint64_t x = digest_[event.dst] ^ (static_cast<std::uint64_t>(event.time.ps) * 0x9E3779B97F4A7C15ull + event.src);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  digest_[event.dst] = x ^ (x >> 31);
}

}  // namespace pf::core
