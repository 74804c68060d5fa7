// The pending-event store: total order, tie-breaking, slot reuse, growth.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "core/event_queue.h"
#include "tests/unit/core/test_events.h"

namespace pf::core {
namespace {

using test::key;
using test::make;

TEST(EventQueue, PopsInTimeThenSourceThenSequenceOrder) {
  std::mt19937_64 rng(42);
  EventQueue q;
  std::vector<Event> pushed;
  for (int i = 0; i < 20000; ++i) {
    // Few distinct times and sources: many exact ties to break.
    Event e = make(static_cast<std::int64_t>(rng() % 50), static_cast<LpId>(rng() % 7), static_cast<std::uint64_t>(i));
    pushed.push_back(e);
    q.push(e);
  }
  std::sort(pushed.begin(), pushed.end(), [](const Event& a, const Event& b) { return key(a) < key(b); });
  for (const Event& expected : pushed) {
    ASSERT_FALSE(q.empty());
    Event got = q.pop();
    ASSERT_EQ(key(got), key(expected));
  }
  EXPECT_TRUE(q.empty());
  EXPECT_TRUE(q.top_time().is_infinite());
}

TEST(EventQueue, PayloadAndDestinationSurviveTheQueue) {
  EventQueue q;
  struct Msg {
    std::int64_t bytes;
    std::uint32_t hop;
  };
  for (std::uint32_t i = 0; i < 100; ++i) {
    Event e = make(1000 - i, i, 0, 5000 + i);
    e.kind = static_cast<EventKind>(i);
    e.set(Msg{static_cast<std::int64_t>(i) * 1000, i});
    q.push(e);
  }
  for (std::uint32_t i = 0; i < 100; ++i) {
    Event e = q.pop();
    const std::uint32_t expected = 99 - i;
    EXPECT_EQ(e.dst, 5000 + expected);
    EXPECT_EQ(e.kind, expected);
    EXPECT_EQ(e.as<Msg>().bytes, static_cast<std::int64_t>(expected) * 1000);
    EXPECT_EQ(e.as<Msg>().hop, expected);
  }
}

TEST(EventQueue, PushDuringPopReplacesTheTopAndKeepsOrder) {
  // The engine's pattern: take the earliest, the handler sends zero, one or two.
  std::mt19937_64 rng(7);
  EventQueue q;
  std::vector<std::int64_t> reference;  // a plain sorted multiset as the model
  for (int i = 0; i < 64; ++i) {
    std::int64_t t = static_cast<std::int64_t>(rng() % 1000);
    q.push(make(t, 0, static_cast<std::uint64_t>(i)));
    reference.push_back(t);
  }
  std::uint64_t seq = 1000;
  std::int64_t last = -1;
  for (int step = 0; step < 20000 && !q.empty(); ++step) {
    Event e;
    q.begin_pop(e);
    ASSERT_GE(e.time.ps, last);
    last = e.time.ps;
    auto it = std::min_element(reference.begin(), reference.end());
    ASSERT_EQ(*it, e.time.ps);
    reference.erase(it);
    const int sends = static_cast<int>(rng() % 3);  // 0, 1 or 2
    for (int s = 0; s < sends && step < 15000; ++s) {
      std::int64_t t = e.time.ps + static_cast<std::int64_t>(rng() % 500);
      q.push(make(t, 1, seq++));
      reference.push_back(t);
    }
    q.end_pop();
    ASSERT_EQ(q.size(), reference.size());
  }
}

TEST(EventQueue, SlotsAreReusedSoSteadyStateDoesNotGrow) {
  EventQueue q;
  for (int i = 0; i < 1000; ++i) q.push(make(i, 0, static_cast<std::uint64_t>(i)));
  std::uint64_t seq = 1000;
  auto cycle = [&] {
    Event e;
    q.begin_pop(e);
    q.push(make(e.time.ps + 1000, 0, seq++));
    q.end_pop();
  };
  // Warm up over several generations of the ladder's buckets (each ~1000 pops
  // rebuilds them from the same spread of times), then nothing may grow.
  for (int step = 0; step < 5000; ++step) cycle();
  const std::size_t bytes_before = q.memory_bytes();
  for (int step = 0; step < 200000; ++step) {
    Event e;
    q.begin_pop(e);
    q.push(make(e.time.ps + 1000, 0, seq++));
    q.end_pop();
  }
  EXPECT_EQ(q.size(), 1000u);
  EXPECT_EQ(q.memory_bytes(), bytes_before);
  EXPECT_EQ(q.peak_size(), 1000u);
}

TEST(EventQueue, GrowsToMillionsAndDrainsInOrder) {
  EventQueue q;
  std::mt19937_64 rng(3);
  const int n = 1 << 20;
  for (int i = 0; i < n; ++i) q.push(make(static_cast<std::int64_t>(rng() >> 20), 0, static_cast<std::uint64_t>(i)));
  EXPECT_EQ(q.size(), static_cast<std::size_t>(n));
  EXPECT_EQ(q.peak_size(), static_cast<std::size_t>(n));
  // Under 200 bytes per pending event, including vector slack.
  EXPECT_LT(q.memory_bytes() / static_cast<std::size_t>(n), 200u);
  std::int64_t last = -1;
  while (!q.empty()) {
    Event e = q.pop();
    ASSERT_GE(e.time.ps, last);
    last = e.time.ps;
  }
}

}  // namespace
}  // namespace pf::core
