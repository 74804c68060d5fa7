// Pending events in (time, src, seq) order: a 4-ary min-heap of small keys over
// a pooled event store.
//
// The heap moves 24-byte entries, not 64-byte events; event bodies stay put in
// `pool_` and freed slots are reused LIFO (cache-warm), so steady-state running
// allocates nothing. `begin_pop` / `end_pop` let a handler's first send replace
// the event being handled in a single sift-down instead of a pop and a push:
// the common pattern "handle one, schedule one" costs one heap pass.
#pragma once

#include <cstdint>
#include <vector>

#include "core/event.h"

namespace pf::core {

class EventQueue {
 public:
  bool empty() const { return heap_.empty() || (heap_.size() == 1 && top_taken_); }
  std::size_t size() const { return heap_.size() - (top_taken_ ? 1 : 0); }

  // Time of the earliest pending event; infinity when none. Between
  // begin_pop() and end_pop() the taken top is not counted (and the rest of
  // the heap is not searched): the engine asks only outside that span.
  SimTime top_time() const {
    if (heap_.empty() || top_taken_) return SimTime::infinity();
    return SimTime{static_cast<std::int64_t>(heap_[0].time_bits ^ kSignBit)};
  }

  void push(const Event& event);

  // The earliest pending event's (time, src, seq) as one number, for choosing
  // between queues; all ones when none (or between begin_pop and end_pop).
  __extension__ using Key = unsigned __int128;
  Key top_key() const {
    if (heap_.empty() || top_taken_) return ~Key{0};
    return heap_[0].key();
  }

  // Copies the earliest event out and frees its slot; its heap entry stays as a
  // placeholder until the next push (which overwrites it) or end_pop().
  void begin_pop(Event& out);
  void end_pop();

  // Convenience for tests and cold paths: begin_pop + end_pop.
  Event pop();

  void reserve(std::size_t events);
  // Bytes held by the heap and the pool (capacity, not size).
  std::size_t memory_bytes() const;
  std::size_t peak_size() const { return peak_size_; }

 private:
  // (time, tie) compared as one unsigned 128-bit number: branch-free. Kept as
  // two 64-bit halves so an entry is 24 bytes, not a 16-byte-aligned 32.
  // Time's sign bit is flipped so that signed order becomes unsigned order.
  struct Entry {
    std::uint64_t time_bits;
    std::uint64_t tie;
    std::uint32_t slot;
    Key key() const { return (static_cast<Key>(time_bits) << 64) | tie; }
  };
  static constexpr std::uint64_t kSignBit = std::uint64_t{1} << 63;
  static Entry entry_of(const Event& e, std::uint32_t slot) {
    return {static_cast<std::uint64_t>(e.time.ps) ^ kSignBit, e.tie_key(), slot};
  }
  static bool before(const Entry& a, const Entry& b) { return a.key() < b.key(); }
  // Grow by 1.5x rather than std::vector's 2x: bounds the slack per pending event.
  template <class V>
  static void grow_if_full(V& v) {
    if (v.size() == v.capacity()) v.reserve(v.capacity() + v.capacity() / 2 + 64);
  }

  std::uint32_t store(const Event& event);
  void sift_up(std::size_t index);
  void sift_down(std::size_t index);

  std::vector<Entry> heap_;
  std::vector<Event> pool_;
  std::vector<std::uint32_t> free_slots_;
  bool top_taken_ = false;
  std::size_t peak_size_ = 0;
};

inline std::uint32_t EventQueue::store(const Event& event) {
  if (!free_slots_.empty()) {
    std::uint32_t slot = free_slots_.back();
    free_slots_.pop_back();
    pool_[slot] = event;
    return slot;
  }
  grow_if_full(pool_);
  pool_.push_back(event);
  return static_cast<std::uint32_t>(pool_.size() - 1);
}

inline void EventQueue::push(const Event& event) {
  const Entry entry = entry_of(event, store(event));
  if (top_taken_) {
    top_taken_ = false;
    heap_[0] = entry;
    sift_down(0);
    return;
  }
  grow_if_full(heap_);
  heap_.push_back(entry);
  sift_up(heap_.size() - 1);
  if (heap_.size() > peak_size_) peak_size_ = heap_.size();
}

inline void EventQueue::begin_pop(Event& out) {
  std::uint32_t slot = heap_[0].slot;
  out = pool_[slot];
  grow_if_full(free_slots_);
  free_slots_.push_back(slot);
  top_taken_ = true;
}

inline void EventQueue::end_pop() {
  if (!top_taken_) return;
  top_taken_ = false;
  heap_[0] = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0);
}

inline Event EventQueue::pop() {
  Event event;
  begin_pop(event);
  end_pop();
  return event;
}

inline void EventQueue::sift_up(std::size_t index) {
  Entry moving = heap_[index];
  while (index > 0) {
    std::size_t parent = (index - 1) / 4;
    if (!before(moving, heap_[parent])) break;
    heap_[index] = heap_[parent];
    index = parent;
  }
  heap_[index] = moving;
}

// Bottom-up ("hole") sift: walk the hole down to a leaf along the smaller
// children without comparing against the moving entry, then sift the entry up
// from there. Replacements in a discrete-event queue are usually later than
// most pending events, so they settle near the leaves: this saves one
// comparison per level over the textbook loop.
inline void EventQueue::sift_down(std::size_t index) {
  const std::size_t n = heap_.size();
  const std::size_t start = index;
  const Entry moving = heap_[index];
  for (;;) {
    const std::size_t first = index * 4 + 1;
    if (first >= n) break;
    std::size_t best;
    if (first + 4 <= n) {
      // All four children: a branch-free tournament (the common case).
      const std::size_t a = first + static_cast<std::size_t>(before(heap_[first + 1], heap_[first]));
      const std::size_t b = first + 2 + static_cast<std::size_t>(before(heap_[first + 3], heap_[first + 2]));
      best = before(heap_[b], heap_[a]) ? b : a;
    } else {
      best = first;
      for (std::size_t c = first + 1; c < n; ++c)
        if (before(heap_[c], heap_[best])) best = c;
    }
    heap_[index] = heap_[best];
    index = best;
  }
  while (index > start) {
    const std::size_t parent = (index - 1) / 4;
    if (!before(moving, heap_[parent])) break;
    heap_[index] = heap_[parent];
    index = parent;
  }
  heap_[index] = moving;
}

inline void EventQueue::reserve(std::size_t events) {
  heap_.reserve(events);
  pool_.reserve(events);
  free_slots_.reserve(events);
}

inline std::size_t EventQueue::memory_bytes() const {
  return heap_.capacity() * sizeof(Entry) + pool_.capacity() * sizeof(Event) +
         free_slots_.capacity() * sizeof(std::uint32_t);
}

}  // namespace pf::core
