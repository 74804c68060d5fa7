// Pending events split by lookahead class, so that a synchronisation round can
// ask "how soon could anything pending here reach another rank?".
//
// Why. With one global lookahead L (the smallest latency of a link between
// ranks), a window is [T, T + L) where T is the earliest pending event
// anywhere. But most events happen at LPs far from any cut link: a GPU's
// kernel completion cannot reach another rank before its message has crossed
// PCIe, the NIC, a leaf and the cut link, which is several times L. Given, per
// LP, the smallest delay d(lp) from an event there to any event on another
// rank, the safe bound is min over pending events e of (e.time + d(e.dst)).
// Keeping one heap per class of d makes that bound a handful of comparisons:
// min over classes k of (earliest event of class k + d_k).
//
// Order is unchanged: pop takes the smallest (time, src, seq) over the class
// heaps, so events commit in exactly the order a single queue gives. With one
// class this is a single EventQueue plus one predictable branch.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/event_queue.h"

namespace pf::core {

inline constexpr int kMaxLookaheadClasses = 4;

class LookaheadQueue {
 public:
  // class_of[lp] < classes; lookahead[k] is class k's delay (any order).
  void configure(std::vector<std::uint8_t> class_of, std::vector<SimTime> lookahead);

  // Quiet events (Event::flags & kQuietEvent) go to a heap of their own once
  // separate_quiet() is on: the safe bound leaves them out, the LP's promise
  // stands for them (core/promise_board.h). Silent events (kSilentEvent) go
  // there too: handling them sends nothing, so nothing stands for them. Order
  // is unchanged either way.
  void push(const Event& event) { queues_[queue_of(event.dst, event.flags)].push(event); }
  // The same for an event written straight into its slot (EventQueue::push_built).
  template <class Fill>
  const Event& push_built(LpId dst, std::uint8_t flags, SimTime time, std::uint64_t tie, Fill&& fill) {
    return queues_[queue_of(dst, flags)].push_built(time, tie, std::forward<Fill>(fill));
  }
  void separate_quiet() { separate_quiet_ = true; }

  SimTime top_time() const {
    SimTime best = queues_[0].top_time();
    for (int k = 1; k < classes_; ++k) best = std::min(best, queues_[static_cast<std::size_t>(k)].top_time());
    if (separate_quiet_) best = std::min(best, queues_[kQuietHeap].top_time());
    return best;
  }

  // min over classes of (earliest pending time + the class's lookahead):
  // nothing pending here can cause an event on another rank before it.
  SimTime safe_bound() const {
    SimTime best = SimTime::infinity();
    for (int k = 0; k < classes_; ++k) {
      const auto i = static_cast<std::size_t>(k);
      best = std::min(best, queues_[i].top_time() + lookahead_[i]);
    }
    return best;
  }

  // The delay class of an LP, for events that are not in this queue (outgoing).
  SimTime lookahead_of(LpId lp) const { return lookahead_[class_of(lp)]; }

  void begin_pop(Event& out) {
    taken_ = 0;
    for (int k = 1; k < classes_; ++k)
      if (queues_[static_cast<std::size_t>(k)].top_key() < queues_[taken_].top_key()) taken_ = static_cast<std::size_t>(k);
    if (separate_quiet_ && queues_[kQuietHeap].top_key() < queues_[taken_].top_key()) taken_ = kQuietHeap;
    queues_[taken_].begin_pop(out);
  }
  void end_pop() { queues_[taken_].end_pop(); }

  std::size_t size() const;
  std::size_t peak_size() const;
  std::size_t memory_bytes() const;
  int classes() const { return classes_; }

 private:
  std::size_t class_of(LpId lp) const { return classes_ == 1 ? 0 : class_of_[lp]; }
  std::size_t queue_of(LpId dst, std::uint8_t flags) const {
    return separate_quiet_ && outside_bound(flags) ? kQuietHeap : class_of(dst);
  }

  static constexpr std::size_t kQuietHeap = kMaxLookaheadClasses;
  std::array<EventQueue, kMaxLookaheadClasses + 1> queues_;  // the classes, then the quiet events
  std::array<SimTime, kMaxLookaheadClasses> lookahead_{};
  std::vector<std::uint8_t> class_of_;
  int classes_ = 1;
  bool separate_quiet_ = false;
  std::size_t taken_ = 0;
};

// Groups per-LP lookaheads into at most kMaxLookaheadClasses classes. Each LP's
// class value is at most its own (rounding down keeps the bound safe); the
// smallest value always has a class of its own.
struct LookaheadClasses {
  std::vector<std::uint8_t> class_of;
  std::vector<SimTime> lookahead;
};
LookaheadClasses group_lookaheads(const std::vector<SimTime>& lp_lookahead);

}  // namespace pf::core
