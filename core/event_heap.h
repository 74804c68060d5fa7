// The near end of the pending-event store: a 4-ary min-heap of small keys.
//
// Entries are 24 bytes ((time, tie) key and the slot of the event body in the
// queue's pool), so a sift moves keys, not 64-byte events. The heap only ever
// holds the events of the current time bucket (event_ladder.h keeps the rest),
// which keeps it small enough to stay in cache.
#pragma once

#include <cstdint>
#include <vector>

namespace pf::core {

// (time, tie) compared as one unsigned 128-bit number: branch-free. Kept as two
// 64-bit halves so an entry is 24 bytes, not a 16-byte-aligned 32. Time's sign
// bit is flipped so that signed order becomes unsigned order.
struct QueueEntry {
  std::uint64_t time_bits;
  std::uint64_t tie;
  std::uint32_t slot;

  __extension__ using Key = unsigned __int128;
  Key key() const { return (static_cast<Key>(time_bits) << 64) | tie; }
};

inline bool before(const QueueEntry& a, const QueueEntry& b) { return a.key() < b.key(); }

// Grow by 1.5x rather than std::vector's 2x: bounds the slack per pending
// event.
template <class V>
void grow_if_full(V& v) {
  if (v.size() == v.capacity()) v.reserve(v.capacity() + v.capacity() / 2 + 64);
}

class EventHeap {
 public:
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const QueueEntry& top() const { return heap_[0]; }
  // The entry that becomes the top once the top is popped (the smallest of
  // its children); nullptr when the top is alone. Not valid after a push.
  const QueueEntry* runner_up() const {
    const std::size_t n = heap_.size();
    if (n < 2) return nullptr;
    std::size_t best = 1;
    for (std::size_t c = 2; c < n && c <= 4; ++c)
      if (before(heap_[c], heap_[best])) best = c;
    return &heap_[best];
  }

  // The entry is placed once, where it settles: written and then read back
  // whole, its fields (stored one by one) could not be forwarded to the
  // wider load, which stalled every push (perf, gpt3-175b-a100-1024 packet).
  void push(const QueueEntry& entry) {
    grow_if_full(heap_);
    heap_.emplace_back();
    sift_up(heap_.size() - 1, entry);
  }
  // Overwrites the top and restores order: the "handle one, schedule one"
  // pattern costs one pass instead of a pop and a push.
  void replace_top(const QueueEntry& entry) { sift_down(0, entry); }
  void pop() {
    const QueueEntry last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0, last);
  }
  // Takes over entries in any order and heapifies them bottom-up (Floyd):
  // O(n), where sorting them first was O(n log n) and cost more than the
  // pops it saved nothing on (pops sift the same either way).
  void assign(const std::vector<QueueEntry>& entries) {
    heap_.assign(entries.begin(), entries.end());
    if (heap_.size() < 2) return;
    for (std::size_t i = (heap_.size() - 2) / 4 + 1; i-- > 0;) sift_down(i, heap_[i]);
  }
  const std::vector<QueueEntry>& entries() const { return heap_; }  // heap order
  void clear() { heap_.clear(); }
  std::size_t capacity() const { return heap_.capacity(); }
  void reserve(std::size_t n) { heap_.reserve(n); }

 private:
  // Moves `moving` into the hole at `index`, up or down to its place.
  void sift_up(std::size_t index, QueueEntry moving);
  void sift_down(std::size_t index, QueueEntry moving);

  std::vector<QueueEntry> heap_;
};

inline void EventHeap::sift_up(std::size_t index, const QueueEntry moving) {
  while (index > 0) {
    const std::size_t parent = (index - 1) / 4;
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
inline void EventHeap::sift_down(std::size_t index, const QueueEntry moving) {
  const std::size_t n = heap_.size();
  const std::size_t start = index;
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

}  // namespace pf::core
