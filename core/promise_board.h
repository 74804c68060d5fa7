// Dynamic lookahead: what each LP promises about its next send to another LP.
//
// Why. A rank may run every event before the bound B = min over pending
// events e of (e.time + d(e.dst)), d(lp) being the static delay from an event
// at lp to any event on another rank (core/lookahead_queue.h). An LP that
// mostly talks to itself — a GPU whose kernel completions start its next
// kernel — binds B with every such event, though most of them send nothing
// anywhere. The LP knows better: "nothing I do before time P, unless another
// LP wakes me, reaches anyone else". This is the earliest output time of the
// conservative-PDES literature (Nicol's "lookahead computation"; Chandy-Misra
// null messages carrying a computed rather than a fixed lookahead).
//
// Contract. An LP sends the events it can bound to itself as quiet events
// (LpContext::send_quiet) and, at the end of every event it handles while a
// quiet event of its own is pending, states its promise (LpContext::promise):
// the earliest time at which handling its quiet events — and anything they
// schedule for it in turn — could send an event to another LP (the time of
// handling: what it sends then arrives later still). A quiet event may also
// go to another LP of the same rank whose state the model knows (a server's
// GPUs, LpContext::send_quiet_to) and whose static lookahead is no smaller;
// such an event counts at its own time, not the time it is sent (nothing
// follows from it sooner), and the model states the receiver's promise at
// once (promise_for). Events from other ranks are never quiet. Then
//
//   B = min( over pending non-quiet events e: e.time + d(e.dst),
//            max( over LPs x with a quiet event pending: P(x) + d(x),
//                 T + d_min ) )
//
// where T is the earliest pending event anywhere (no LP handles anything
// before it) and d_min the smallest static lookahead: an LP that has not
// promised, or promised below T, costs what an idle rank costs, never a
// stalled window. The engine checks every promise: an event sent to another
// LP while handling a quiet event earlier than the LP's promise stops the
// run with an error naming the LP, on one rank as on many (LpContext::send).
//
// Deferred promises. After a quiet event an LP's last promise still holds
// (it covered every state its quiet events lead to), though it may have
// grown. Working it out again after each such event can cost more than the
// windows it saves (a GPU walks its program: a third of gpt3-175b's run), so
// the LP may leave it standing (LpContext::defer_promise, mark_stale here).
// When a bound is taken, a stale promise that would give the minimum, and
// only such a one, is restated by the model (PromiseSource) first; a minimum
// at or beyond the rank's bound from its other events cannot lower the
// window and is left as it stands. The bound is therefore exactly the one
// every LP's current promise gives.
//
// Silent events (kSilentEvent, LpContext::send_silent) need no promise at
// all: their handling sends nothing (not even to its own LP: what it
// scheduled would be missing from the window's bound already taken) and
// moves none of the LP's later sends sooner (a network chunk that is not its message's last,
// queued on the port into its GPU). They go to the quiet heap (counted in
// T, not in B) on whichever rank they land; the engine stops the run if one
// is answered by a send, or lowers its LP's promise.
//
// This class keeps the promises and, on more than one rank, the minimum of
// P(x) + d(x) over the LPs of this rank with a quiet event pending: a
// tournament tree over the local LPs; an LP whose promise or quiet count
// changed is settled in O(log n) once, when the bound is next asked for.
#pragma once

#include <cstdint>
#include <vector>

#include "core/event.h"
#include "core/sim_time.h"

namespace pf::core {

// What restates a deferred promise (LpContext::defer_promise): the model,
// asked at a synchronisation for the current promise of an LP whose last
// stated one would bound the window. Called once per window at most per LP,
// never per event: a virtual call is cheap there.
class PromiseSource {
 public:
  virtual SimTime current_promise(LpId lp) = 0;

 protected:
  ~PromiseSource() = default;
};

class PromiseBoard {
 public:
  // lp_count: every LP of the model. tracked: the local LPs whose promises
  // bound windows, with their static lookahead d(lp) (one rank: none; the
  // promises are still kept, for the check).
  void configure(std::size_t lp_count, const std::vector<LpId>& tracked, const std::vector<SimTime>& lookahead);

  SimTime promise_of(LpId lp) const { return promise_[lp]; }
  void promise(LpId lp, SimTime at) {
    if (!stale_.empty()) stale_[lp] = 0;
    if (promise_[lp] == at) return;
    promise_[lp] = at;
    touch(lp);
  }
  // The LP handled quiet events only since its last promise, which therefore
  // still holds (it covered every state they lead to) but may have grown:
  // the engine asks the model's PromiseSource for the current one when, and
  // only when, this one would bound a window (LpContext::defer_promise).
  void mark_stale(LpId lp) {
    if (!stale_.empty()) stale_[lp] = 1;
  }
  bool stale(LpId lp) const { return !stale_.empty() && stale_[lp] != 0; }
  // earliest_output(), with every stale promise that would give it restated
  // by `source` first, as far as it matters: a minimum at or past
  // `matters_below` (the bound from the events that are not quiet) cannot
  // lower a window's bound and is left as it stands. Each LP is restated at
  // most once (a restated promise is never below the stale one), so it ends.
  SimTime settled_earliest_output(SimTime matters_below, PromiseSource* source);
  void quiet_pushed(LpId lp) {
    if (!slot_.empty() && quiet_[lp]++ == 0) touch(lp);
  }
  void quiet_popped(LpId lp) {
    if (!slot_.empty() && --quiet_[lp] == 0) touch(lp);
  }
  // min over tracked LPs with a quiet event pending of promise + lookahead;
  // infinity when there is none. Settles the LPs changed since the last call
  // (once each, however often they changed: a kernel's end pops and pushes).
  SimTime earliest_output();

 private:
  void touch(LpId lp) {
    if (slot_.empty() || touched_[lp]) return;
    touched_[lp] = 1;
    changed_.push_back(lp);
  }
  void refresh(LpId lp);
  // The tracked LP whose promise gives earliest_output(), or kNoLp when none
  // does (call earliest_output() first: it settles the tree).
  static constexpr LpId kNoLp = ~LpId{0};
  LpId binding_lp() const;

  std::vector<SimTime> promise_;       // per LP; -infinity until the LP promises
  std::vector<std::uint32_t> quiet_;   // per LP: quiet events pending (tracked LPs only)
  std::vector<std::uint32_t> slot_;    // per LP: its leaf in tree_ (tracked LPs only)
  std::vector<SimTime> lookahead_;     // per LP
  std::vector<SimTime> tree_;          // 1-based heap layout; leaves from leaves_
  std::vector<std::uint8_t> touched_;  // per LP: in changed_
  std::vector<std::uint8_t> stale_;    // per LP: its promise may have grown since stated (tracked LPs only)
  std::vector<LpId> leaf_lp_;          // per leaf of tree_: its LP
  std::vector<LpId> changed_;          // tracked LPs whose leaf is out of date
  std::size_t leaves_ = 0;
};

}  // namespace pf::core
