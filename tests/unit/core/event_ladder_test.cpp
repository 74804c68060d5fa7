// The ladder of time buckets behind the event heap: whatever the spread of
// times, pops come out in exactly (time, src, seq) order, and far-future events
// wait in buckets instead of the heap.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <tuple>
#include <vector>

#include "core/event_queue.h"
#include "tests/unit/core/test_events.h"

namespace pf::core {
namespace {

using test::key;
using test::make;
using Key = std::tuple<std::int64_t, LpId, std::uint64_t>;

// Tiny buckets and rungs: every path (overflow rebuilds, splits, the depth
// limit, unsplittable one-instant buckets) runs within a few thousand events.
LadderTuning tiny() {
  LadderTuning t;
  t.events_per_bucket = 2;
  t.split_above = 4;
  t.max_rungs = 3;
  t.max_buckets = 16;
  t.take_back_above = 8;
  return t;
}

// A random engine-like run: pop the earliest, push 0..3 events at a mix of
// offsets (same instant, near, far, very far), checked against a std::set.
void run_against_reference(EventQueue& q, std::uint64_t seed, int steps, std::int64_t origin) {
  std::mt19937_64 rng(seed);
  std::set<Key> reference;
  std::uint64_t seq = 0;
  auto push = [&](std::int64_t t) {
    const Event e = make(t, static_cast<LpId>(rng() % 5), seq++);
    q.push(e);
    reference.insert(key(e));
  };
  auto offset = [&]() -> std::int64_t {
    switch (rng() % 6) {
      case 0:
        return 0;  // a tie in time
      case 1:
        return static_cast<std::int64_t>(rng() % 8);  // within a bucket
      case 2:
        return static_cast<std::int64_t>(rng() % 1000);
      case 3:
        return static_cast<std::int64_t>(rng() % 1000000);
      case 4:
        return static_cast<std::int64_t>(rng() % 1000000000000);  // ~1 s
      default:
        return static_cast<std::int64_t>(rng() % 50);
    }
  };
  for (int i = 0; i < 200; ++i) push(origin + offset());
  std::int64_t now = origin;
  for (int step = 0; step < steps && !reference.empty(); ++step) {
    ASSERT_EQ(q.top_time().ps, std::get<0>(*reference.begin()));
    Event e;
    q.begin_pop(e);
    ASSERT_EQ(key(e), *reference.begin()) << "step " << step;
    reference.erase(reference.begin());
    ASSERT_GE(e.time.ps, now);
    now = e.time.ps;
    const int sends = static_cast<int>(rng() % 4);
    for (int s = 0; s < sends && step < steps - 5000; ++s) push(now + offset());
    q.end_pop();
    ASSERT_EQ(q.size(), reference.size());
  }
  while (!reference.empty()) {
    ASSERT_EQ(key(q.pop()), *reference.begin());
    reference.erase(reference.begin());
  }
  EXPECT_TRUE(q.empty());
  EXPECT_TRUE(q.top_time().is_infinite());
}

// A bucket joins the heap unsorted (Floyd's heapify): any order of entries,
// duplicates of one instant included, pops back in (time, tie) order.
TEST(EventHeap, AssignHeapifiesEntriesInAnyOrder) {
  std::mt19937_64 rng(7);
  for (std::size_t n : {0u, 1u, 2u, 3u, 4u, 5u, 6u, 17u, 64u, 1000u}) {
    std::vector<QueueEntry> entries;
    for (std::size_t i = 0; i < n; ++i)
      entries.push_back({rng() % 50, rng() % 1000, static_cast<std::uint32_t>(i)});
    std::vector<QueueEntry> sorted = entries;
    std::sort(sorted.begin(), sorted.end(), [](const QueueEntry& a, const QueueEntry& b) { return before(a, b); });
    EventHeap heap;
    heap.assign(entries);
    ASSERT_EQ(heap.size(), n);
    for (const QueueEntry& want : sorted) {
      ASSERT_FALSE(heap.empty());
      EXPECT_EQ(heap.top().key(), want.key()) << "n " << n;
      heap.pop();
    }
    EXPECT_TRUE(heap.empty());
  }
}

TEST(EventLadder, TinyBucketsKeepExactOrder) {
  EventQueue q(tiny());
  run_against_reference(q, 11, 60000, 0);
}

TEST(EventLadder, DefaultBucketsKeepExactOrder) {
  EventQueue q;
  run_against_reference(q, 12, 60000, 0);
}

TEST(EventLadder, NegativeTimesAndTheLargestTimesKeepOrder) {
  // Time bits are sign-flipped; the top of the range must not overflow a
  // bucket's end.
  EventQueue q(tiny());
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  std::set<Key> reference;
  std::uint64_t seq = 0;
  for (std::int64_t t : {max, max - 1, max, std::int64_t{-5}, std::int64_t{0}, max - 1000, std::int64_t{-1}, max}) {
    q.push(make(t, 0, seq));
    reference.insert(Key{t, 0, seq++});
  }
  // Pushes into an emptied-and-refilled queue, then at the largest time again.
  for (const Key& k : reference) ASSERT_EQ(key(q.pop()), k);
  EXPECT_TRUE(q.empty());
  q.push(make(max, 1, 0));
  q.push(make(3, 1, 1));
  EXPECT_EQ(key(q.pop()), (Key{3, 1, 1}));
  EXPECT_EQ(key(q.pop()), (Key{max, 1, 0}));
  EXPECT_TRUE(q.empty());
}

TEST(EventLadder, ABurstAtOneInstantLargerThanABucketComesOutByTieKey) {
  EventQueue q(tiny());
  std::set<Key> reference;
  for (std::uint64_t i = 0; i < 500; ++i) {
    const auto src = static_cast<LpId>((i * 37) % 11);
    q.push(make(1000, src, i));
    reference.insert(Key{1000, src, i});
    q.push(make(static_cast<std::int64_t>(2000 + i % 3), src, i));
    reference.insert(Key{2000 + static_cast<std::int64_t>(i % 3), src, i});
  }
  for (const Key& k : reference) ASSERT_EQ(key(q.pop()), k);
}

TEST(EventLadder, FarFutureEventsWaitInBucketsNotInTheHeap) {
  // 100,000 events spread over a second, then the engine's hold pattern: the
  // heap holds about one bucket's worth, not the whole pending set.
  EventQueue q;
  std::mt19937_64 rng(5);
  for (std::uint64_t i = 0; i < 100000; ++i) q.push(make(static_cast<std::int64_t>(rng() % 1000000000000), 0, i));
  std::size_t largest_heap = 0;
  std::size_t largest_steady = 0;
  std::uint64_t seq = 100000;
  std::int64_t last = 0;
  for (int step = 0; step < 200000; ++step) {
    Event e;
    q.begin_pop(e);
    ASSERT_GE(e.time.ps, last);
    last = e.time.ps;
    q.push(make(e.time.ps + static_cast<std::int64_t>(rng() % 1000000000000), 0, seq++));
    q.end_pop();
    largest_heap = std::max(largest_heap, q.near_size());
    if (step >= 100000) largest_steady = std::max(largest_steady, q.near_size());
  }
  EXPECT_EQ(q.size(), 100000u);
  // While the initial population settles, a burst before the horizon may
  // reach the take-back threshold; after that the heap holds one bucket
  // (never more than a split-sized one) and the pushes that fall inside it.
  EXPECT_LE(largest_heap, LadderTuning{}.take_back_above);
  EXPECT_LE(largest_steady, LadderTuning{}.split_above) << "the heap should hold one bucket, not the pending set";
}

}  // namespace
}  // namespace pf::core
