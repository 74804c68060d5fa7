#include "core/event_ladder.h"

#include <bit>
#include <limits>

namespace pf::core {
namespace {

constexpr std::uint64_t kMaxBits = std::numeric_limits<std::uint64_t>::max();
constexpr std::uint64_t kHeapOnly = kMaxBits;

struct TimeRange {
  std::uint64_t lo = kMaxBits;
  std::uint64_t hi = 0;
};

TimeRange range_of(const std::vector<QueueEntry>& entries) {
  TimeRange r;
  for (const QueueEntry& e : entries) {
    r.lo = std::min(r.lo, e.time_bits);
    r.hi = std::max(r.hi, e.time_bits);
  }
  return r;
}

}  // namespace

void EventLadder::open_rung(const std::vector<QueueEntry>& entries, std::uint64_t lo, std::uint64_t hi,
                            std::uint64_t end) {
  Rung& rung = rungs_[depth_++];
  const std::size_t wanted =
      std::clamp<std::size_t>(entries.size() / tuning_.events_per_bucket, 1, tuning_.max_buckets);
  // Buckets are sized over the events' own span [lo, hi]; the last one also
  // takes (hi, end), where later pushes may land.
  // Width: the smallest power of two >= (hi - lo) / wanted + 1, so that
  // `wanted` buckets or fewer cover [lo, hi]; capped so the shift stays
  // defined.
  rung.start = lo;
  rung.end = end;
  rung.shift = std::min(63, static_cast<int>(std::bit_width((hi - lo) / wanted)));
  const std::uint64_t reach = end - lo;
  const std::uint64_t buckets = (reach >> rung.shift) + ((reach & ((std::uint64_t{1} << rung.shift) - 1)) != 0 ? 1 : 0);
  rung.count = static_cast<std::size_t>(std::min<std::uint64_t>(buckets, wanted + 1));
  rung.count = std::max<std::size_t>(rung.count, 1);
  rung.next = 0;
  if (rung.buckets.size() < rung.count) rung.buckets.resize(rung.count);
  for (const QueueEntry& e : entries) {
    std::vector<QueueEntry>& bucket = rung.buckets[rung.index(e.time_bits)];
    grow_if_full(bucket);
    bucket.push_back(e);
  }
}

void EventLadder::hand_to_heap(std::vector<QueueEntry>& bucket, std::uint64_t bucket_end, EventHeap& heap) {
  heap.assign(bucket);
  size_ -= bucket.size();
  bucket.clear();
  horizon_ = bucket_end;
}

bool EventLadder::refill(EventHeap& heap) {
  for (;;) {
    if (depth_ == 0) {
      if (overflow_.empty()) {
        horizon_ = kHeapOnly;  // drained: back to the plain heap until it grows again
        return false;
      }
      const TimeRange r = range_of(overflow_);
      // Rung 0 ends just past the latest event it was built from; saturated at
      // the largest time, which then stays in its last bucket. The overflow
      // holds nothing earlier than the horizon (or the heap was all of it).
      open_rung(overflow_, r.lo, r.hi, r.hi == kMaxBits ? kMaxBits : r.hi + 1);
      overflow_.clear();
      horizon_ = r.lo;
      continue;
    }
    Rung& rung = rungs_[depth_ - 1];
    while (rung.next < rung.count && rung.buckets[rung.next].empty()) ++rung.next;
    if (rung.next == rung.count) {
      horizon_ = std::max(horizon_, rung.end);
      --depth_;
      continue;
    }
    std::vector<QueueEntry>& bucket = rung.buckets[rung.next];
    const std::uint64_t bucket_end = rung.bucket_end(rung.next);
    ++rung.next;
    if (bucket.size() > tuning_.split_above && depth_ < rungs_.size()) {
      const TimeRange r = range_of(bucket);
      if (r.lo != r.hi) {  // events at one instant cannot be split by time
        open_rung(bucket, r.lo, r.hi, bucket_end);
        bucket.clear();
        horizon_ = std::max(horizon_, r.lo);
        continue;
      }
    }
    hand_to_heap(bucket, bucket_end, heap);
    return true;
  }
}

bool EventLadder::take_back(EventHeap& heap) {
  if (depth_ == 0) {
    // Heap-only so far (or between rungs): the heap becomes the overflow that
    // rung 0 is built from.
    overflow_.insert(overflow_.end(), heap.entries().begin(), heap.entries().end());
    size_ += heap.size();
    heap.clear();
    refill(heap);
    return true;
  }
  if (depth_ == rungs_.size()) return false;
  const TimeRange r = range_of(heap.entries());
  if (r.lo == r.hi) return false;
  // Every entry is before the horizon, so the new rung ends there and sits
  // below (earlier than) whatever the ladder holds.
  open_rung(heap.entries(), r.lo, r.hi, horizon_);
  size_ += heap.size();
  heap.clear();
  horizon_ = r.lo;
  refill(heap);
  return true;
}

std::size_t EventLadder::memory_bytes() const {
  std::size_t bytes = overflow_.capacity() * sizeof(QueueEntry) + rungs_.capacity() * sizeof(Rung);
  for (const Rung& rung : rungs_) {
    bytes += rung.buckets.capacity() * sizeof(std::vector<QueueEntry>);
    for (const auto& bucket : rung.buckets) bytes += bucket.capacity() * sizeof(QueueEntry);
  }
  return bytes;
}

}  // namespace pf::core
