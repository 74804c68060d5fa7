// Pending events split by lookahead class: the same commit order as one queue,
// the safe bound it promises, and how per-LP lookaheads become classes.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>
#include <vector>

#include "core/error.h"
#include "core/lookahead_queue.h"
#include "tests/unit/core/test_events.h"

namespace pf::core {
namespace {

using test::key;
using test::make;

// The engine's pattern: take the earliest, let the handler push a few (the
// first often to the same LP), then release; checked against one plain queue.
TEST(LookaheadQueue, CommitsInExactlyTheOrderOfASingleQueue) {
  constexpr LpId kLps = 40;
  std::vector<std::uint8_t> class_of(kLps);
  for (LpId lp = 0; lp < kLps; ++lp) class_of[lp] = static_cast<std::uint8_t>(lp % 3 == 0 ? 0 : lp % 7 == 0 ? 2 : 1);
  LookaheadQueue split;
  split.configure(class_of, {SimTime{100}, SimTime{700}, SimTime{1300}});
  EventQueue single;
  std::mt19937_64 rng(7);
  std::uint64_t seq = 0;
  for (int i = 0; i < 200; ++i) {
    const Event e = make(static_cast<std::int64_t>(rng() % 100), static_cast<LpId>(rng() % kLps), seq++,
                         static_cast<LpId>(rng() % kLps));
    split.push(e);
    single.push(e);
  }
  for (int n = 0; n < 20000; ++n) {
    ASSERT_EQ(split.top_time(), single.top_time());
    Event a, b;
    split.begin_pop(a);
    single.begin_pop(b);
    ASSERT_EQ(key(a), key(b)) << "pop " << n;
    ASSERT_EQ(a.dst, b.dst);
    const int fan = static_cast<int>(rng() % 3);  // 0, 1 or 2 new events: the queue drains and refills
    for (int k = 0; k < fan; ++k) {
      const LpId dst = k == 0 ? a.dst : static_cast<LpId>(rng() % kLps);
      const Event e = make(a.time.ps + static_cast<std::int64_t>(rng() % 30), a.dst, seq++, dst);
      split.push(e);
      single.push(e);
    }
    split.end_pop();
    single.end_pop();
    ASSERT_EQ(split.size(), single.size());
    if (single.empty()) break;
  }
}

TEST(LookaheadQueue, SafeBoundIsTheEarliestTimePlusLookaheadOverClasses) {
  LookaheadQueue q;
  q.configure({0, 1, 1}, {SimTime{100}, SimTime{1000}});
  EXPECT_EQ(q.safe_bound(), SimTime::infinity());
  q.push(make(5000, 0, 0, 1));  // class 1: 6000
  EXPECT_EQ(q.safe_bound(), SimTime{6000});
  q.push(make(5500, 0, 1, 0));  // class 0: 5600, binds although it is later
  EXPECT_EQ(q.safe_bound(), SimTime{5600});
  EXPECT_EQ(q.top_time(), SimTime{5000});
  q.push(make(4000, 0, 2, 2));  // class 1: 5000
  EXPECT_EQ(q.safe_bound(), SimTime{5000});
  EXPECT_EQ(q.lookahead_of(0), SimTime{100});
  EXPECT_EQ(q.lookahead_of(2), SimTime{1000});
}

TEST(LookaheadQueue, RefusesAClassThatDoesNotExist) {
  LookaheadQueue q;
  EXPECT_THROW(q.configure({0, 2}, {SimTime{1}, SimTime{2}}), SimulationError);
  EXPECT_THROW(q.configure({}, {}), SimulationError);
}

TEST(GroupLookaheads, FewDistinctValuesKeepTheirOwnClass) {
  const std::vector<SimTime> lp = {SimTime{1330}, SimTime{230}, SimTime{1330}, SimTime{1680}, SimTime{230}};
  const LookaheadClasses c = group_lookaheads(lp);
  ASSERT_EQ(c.lookahead.size(), 3u);
  for (std::size_t i = 0; i < lp.size(); ++i) EXPECT_EQ(c.lookahead[c.class_of[i]], lp[i]) << i;
}

TEST(GroupLookaheads, ManyValuesRoundDownAndTheSmallestStaysExact) {
  std::vector<SimTime> lp;
  std::mt19937_64 rng(3);
  for (int i = 0; i < 500; ++i) lp.push_back(SimTime{static_cast<std::int64_t>(50 + rng() % 5000)});
  lp.push_back(SimTime::infinity());  // an LP with no path to another rank
  const LookaheadClasses c = group_lookaheads(lp);
  ASSERT_EQ(c.lookahead.size(), static_cast<std::size_t>(kMaxLookaheadClasses));
  EXPECT_EQ(c.lookahead[0], *std::min_element(lp.begin(), lp.end()));
  std::vector<int> used(c.lookahead.size(), 0);
  for (std::size_t i = 0; i < lp.size(); ++i) {
    EXPECT_LE(c.lookahead[c.class_of[i]], lp[i]) << "LP " << i << ": rounding up would be unsafe";
    ++used[c.class_of[i]];
  }
  for (std::size_t k = 0; k < used.size(); ++k) EXPECT_GT(used[k], 0) << "class " << k << " is empty";
}

}  // namespace
}  // namespace pf::core
