// The far end of the pending-event store: unsorted time buckets (a ladder
// queue, after Tang, Goh and Thng, "Ladder queue: an O(1) priority queue
// structure for large-scale discrete event simulation", ACM TOMACS 15(3),
// 2005).
//
// Why. A packet-level run of thousands of GPUs keeps hundreds of thousands of
// chunk arrivals pending, most of them far beyond the next few microseconds. In
// one heap every push and pop then walks ~10 levels of a structure far larger
// than the CPU caches: profiles of the 9,216-GPU SimAI run showed more than
// half the time in heap sifts waiting on memory. Here an event far in the
// future is appended to the bucket of its time range (one sequential write) and
// joins the heap only when the simulation reaches that bucket, heapified with
// the few dozen events that share it.
//
// Structure. `horizon` splits time: events earlier than it live in the heap
// (event_heap.h), the rest here. Rung 0 covers [start, end) in equal buckets
// (the last one reaching to `end`), sized from the events it was built from;
// anything at or beyond the deepest covering rung's end waits in `overflow`
// until rung 0 is used up and is rebuilt from it. A bucket too full to heapify
// cheaply becomes a finer rung of its own (at most max_rungs deep), and a heap
// that grows past take_back_above hands its entries back to a rung. While the
// pending set is small the horizon sits at the end of time and the heap holds
// everything: a cache-resident heap beats bucketing (PHOLD with 8,192 pending
// events ran 1.8x slower when every event went through the buckets).
// Order is untouched: buckets only partition by time, and the heap orders by
// the full (time, src, seq) key, so pops are exactly a single heap's.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/event_heap.h"

namespace pf::core {

// Sizes of the ladder (exposed for the unit tests, which shrink them to
// exercise every path).
struct LadderTuning {
  std::size_t events_per_bucket = 32;  // target when sizing a rung
  std::size_t split_above = 512;       // a bucket larger than this becomes a rung
  std::size_t max_rungs = 8;
  std::size_t max_buckets = std::size_t{1} << 16;  // per rung
  // Heap size that sends the heap's entries (back) to the ladder: 16,384
  // entries are 384 KiB, well inside a core's L2.
  std::size_t take_back_above = 16384;
};

class EventLadder {
 public:
  // Events earlier than this belong in the heap; the ladder holds the rest.
  std::uint64_t horizon() const { return horizon_; }
  std::size_t size() const { return size_; }
  const LadderTuning& tuning() const { return tuning_; }

  // Precondition: entry.time_bits >= horizon().
  void add(const QueueEntry& entry) {
    ++size_;
    for (std::size_t r = depth_; r-- > 0;) {
      Rung& rung = rungs_[r];
      if (entry.time_bits < rung.end) {
        std::vector<QueueEntry>& bucket = rung.buckets[rung.index(entry.time_bits)];
        grow_if_full(bucket);
        bucket.push_back(entry);
        return;
      }
    }
    grow_if_full(overflow_);
    overflow_.push_back(entry);
  }

  // Moves the earliest non-empty bucket into `heap` (which must be
  // empty) and advances the horizon past it. False when the ladder is empty.
  bool refill(EventHeap& heap);

  // The heap grew large (a burst before the horizon): its entries go back into
  // a rung of their own below the current one, and the earliest bucket of it
  // is handed back. False (nothing moved) when they all share one instant or
  // the ladder is at its depth limit.
  bool take_back(EventHeap& heap);

  std::size_t memory_bytes() const;

  // All rungs exist from the start, so opening one never moves another.
  explicit EventLadder(LadderTuning tuning = {}) : tuning_(tuning), rungs_(std::max<std::size_t>(1, tuning.max_rungs)) {}

 private:
  struct Rung {
    std::uint64_t start = 0;
    int shift = 0;                                 // buckets are 2^shift wide: the index is a shift, not a division
    std::uint64_t end = 0;                         // exclusive; the last bucket reaches it
    std::size_t count = 0;                         // buckets in use
    std::size_t next = 0;                          // first bucket not yet handed to the heap
    std::vector<std::vector<QueueEntry>> buckets;  // grows only: bucket capacity is reused

    std::size_t index(std::uint64_t t) const {
      return static_cast<std::size_t>(std::min<std::uint64_t>((t - start) >> shift, count - 1));
    }
    std::uint64_t bucket_end(std::size_t i) const {
      return i + 1 == count ? end : start + (static_cast<std::uint64_t>(i + 1) << shift);
    }
  };

  // Opens rung depth_ over [lo, end) for `entries` (all in [lo, hi], hi < end
  // unless end saturated) and distributes them into it.
  void open_rung(const std::vector<QueueEntry>& entries, std::uint64_t lo, std::uint64_t hi, std::uint64_t end);
  void hand_to_heap(std::vector<QueueEntry>& bucket, std::uint64_t bucket_end, EventHeap& heap);

  LadderTuning tuning_;
  std::vector<Rung> rungs_;  // [0, depth_) in use, coarsest first; never resized
  std::size_t depth_ = 0;
  std::vector<QueueEntry> overflow_;
  // Starts (and returns, whenever the ladder drains) at the largest time: a
  // small pending set lives in the heap alone, which is faster while it fits
  // in cache; the ladder takes over when the heap passes take_back_above.
  std::uint64_t horizon_ = std::numeric_limits<std::uint64_t>::max();
  std::size_t size_ = 0;
};

}  // namespace pf::core
