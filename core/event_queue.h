// Pending events in (time, src, seq) order over a pooled event store.
//
// Event bodies (64 bytes) stay put in `pool_`; freed slots are reused LIFO
// (cache-warm), so steady-state running allocates nothing. Ordering works on
// 24-byte keys: the events of the current time bucket in a small 4-ary heap
// (event_heap.h), everything later in unsorted time buckets (event_ladder.h)
// that join the heap when the simulation reaches them. Invariant outside
// begin_pop/end_pop: the heap is empty only when the whole queue is, so its top
// is the earliest pending event.
//
// `begin_pop` / `end_pop` let a handler's first send replace the event being
// handled in a single sift-down instead of a pop and a push: the common
// pattern "handle one, schedule one" costs one heap pass.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/event.h"
#include "core/event_heap.h"
#include "core/event_ladder.h"

namespace pf::core {

class EventQueue {
 public:
  EventQueue() = default;
  explicit EventQueue(LadderTuning tuning) : ladder_(tuning), take_back_at_(tuning.take_back_above) {}

  bool empty() const { return size() == 0; }
  std::size_t size() const { return heap_.size() - (top_taken_ ? 1 : 0) + ladder_.size(); }

  // Time of the earliest pending event; infinity when none. Between
  // begin_pop() and end_pop() the taken top is not counted (and the rest of
  // the queue is not searched): the engine asks only outside that span.
  SimTime top_time() const {
    if (heap_.empty() || top_taken_) return SimTime::infinity();
    return SimTime{static_cast<std::int64_t>(heap_.top().time_bits ^ kSignBit)};
  }

  void push(const Event& event);
  // The same for an event the caller writes straight into its slot
  // (`fill(Event&)`), given its time and tie key: a body built field by field
  // and then copied whole stalls the copy's wide loads on store forwarding
  // (a third of push()'s samples on gpt3-175b-a100-1024 packet). Returns it.
  template <class Fill>
  const Event& push_built(SimTime time, std::uint64_t tie, Fill&& fill);

  // The earliest pending event's (time, src, seq) as one number, for choosing
  // between queues; all ones when none (or between begin_pop and end_pop).
  using Key = QueueEntry::Key;
  Key top_key() const {
    if (heap_.empty() || top_taken_) return ~Key{0};
    return heap_.top().key();
  }

  // Copies the earliest event out and frees its slot; its heap entry stays as a
  // placeholder until the next push (which overwrites it) or end_pop().
  void begin_pop(Event& out);
  void end_pop();

  // Convenience for tests and cold paths: begin_pop + end_pop.
  Event pop();

  void reserve(std::size_t events);
  // Bytes held by the heap, the ladder and the pool (capacity, not size).
  std::size_t memory_bytes() const;
  std::size_t peak_size() const { return peak_size_; }
  // Entries in the heap (the current bucket and pushes before the horizon); for
  // tests.
  std::size_t near_size() const { return heap_.size(); }

 private:
  static constexpr std::uint64_t kSignBit = std::uint64_t{1} << 63;

  void refill();
  void take_back();
  void rearm_take_back();

  EventHeap heap_;
  EventLadder ladder_;
  std::vector<Event> pool_;
  std::vector<std::uint32_t> free_slots_;
  bool top_taken_ = false;
  std::size_t take_back_at_ = LadderTuning{}.take_back_above;
  std::size_t peak_size_ = 0;
};

inline void EventQueue::push(const Event& event) {
  push_built(event.time, event.tie_key(), [&event](Event& slot) { slot = event; });
}

template <class Fill>
inline const Event& EventQueue::push_built(SimTime time, std::uint64_t tie, Fill&& fill) {
  std::uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    grow_if_full(pool_);
    pool_.emplace_back();
    slot = static_cast<std::uint32_t>(pool_.size() - 1);
  }
  fill(pool_[slot]);
  const QueueEntry entry{static_cast<std::uint64_t>(time.ps) ^ kSignBit, tie, slot};
  if (entry.time_bits < ladder_.horizon()) {
    if (top_taken_) {
      top_taken_ = false;
      heap_.replace_top(entry);
    } else {
      heap_.push(entry);
      if (heap_.size() > take_back_at_) [[unlikely]]
        take_back();
    }
  } else {
    ladder_.add(entry);
    if (heap_.empty()) refill();
  }
  const std::size_t n = size();
  if (n > peak_size_) peak_size_ = n;
  return pool_[slot];
}

inline void EventQueue::begin_pop(Event& out) {
  const std::uint32_t slot = heap_.top().slot;
  out = pool_[slot];
  // The body of the event most likely handled next is a cache miss in a large
  // model (thousands of LPs, bodies scattered over the pool): fetching it now
  // overlaps the miss with this event's handler. A handler's own sends only
  // ever replace it with an event whose body was just written (in cache).
  if (const QueueEntry* next = heap_.runner_up()) __builtin_prefetch(&pool_[next->slot]);
  grow_if_full(free_slots_);
  free_slots_.push_back(slot);
  top_taken_ = true;
}

inline void EventQueue::end_pop() {
  if (!top_taken_) return;
  top_taken_ = false;
  heap_.pop();
  if (heap_.empty()) refill();
}

inline void EventQueue::refill() {
  ladder_.refill(heap_);
  rearm_take_back();
}

// Hands a burst that piled up before the horizon back to the ladder.
inline void EventQueue::take_back() {
  ladder_.take_back(heap_);
  rearm_take_back();
}

// The threshold doubles past what the heap holds after each move, so a burst
// that cannot be split (one instant) costs O(1) per push amortised, not O(n).
inline void EventQueue::rearm_take_back() {
  take_back_at_ = std::max(ladder_.tuning().take_back_above, 2 * heap_.size());
}

inline Event EventQueue::pop() {
  Event event;
  begin_pop(event);
  end_pop();
  return event;
}

inline void EventQueue::reserve(std::size_t events) {
  pool_.reserve(events);
  free_slots_.reserve(events);
}

inline std::size_t EventQueue::memory_bytes() const {
  return heap_.capacity() * sizeof(QueueEntry) + ladder_.memory_bytes() + pool_.capacity() * sizeof(Event) +
         free_slots_.capacity() * sizeof(std::uint32_t);
}

}  // namespace pf::core
