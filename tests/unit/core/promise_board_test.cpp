// The promise board (core/promise_board.h): the minimum of promise +
// lookahead over tracked LPs with a quiet event pending, against a brute-force
// scan after random updates; untracked LPs and LPs without quiet events never
// count; one rank (nothing tracked) keeps promises for the check only.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "core/promise_board.h"

namespace pf::core {
namespace {

TEST(PromiseBoard, EarliestOutputIsTheMinimumOverLpsWithQuietEvents) {
  const std::size_t lps = 37;
  std::vector<LpId> tracked;
  for (LpId lp = 0; lp < lps; lp += 2) tracked.push_back(lp);  // the even LPs live on this rank
  std::vector<SimTime> lookahead(lps);
  for (std::size_t lp = 0; lp < lps; ++lp) lookahead[lp] = SimTime::from_ns(static_cast<std::int64_t>(100 + 10 * (lp % 5)));
  PromiseBoard board;
  board.configure(lps, tracked, lookahead);
  EXPECT_TRUE(board.earliest_output().is_infinite());

  std::vector<SimTime> promise(lps, SimTime{std::numeric_limits<std::int64_t>::min()});
  std::vector<int> quiet(lps, 0);
  std::mt19937 rng(7);
  for (int step = 0; step < 5000; ++step) {
    const LpId lp = tracked[rng() % tracked.size()];
    switch (rng() % 3) {
      case 0: board.promise(lp, promise[lp] = SimTime::from_ns(static_cast<std::int64_t>(rng() % 100000))); break;
      case 1: board.quiet_pushed(lp); ++quiet[lp]; break;
      default:
        if (quiet[lp] > 0) { board.quiet_popped(lp); --quiet[lp]; }
        break;
    }
    if (step % 7 != 0) continue;  // asked now and then, as at each window
    SimTime expected = SimTime::infinity();
    for (LpId t : tracked)
      if (quiet[t] > 0) expected = std::min(expected, promise[t] + lookahead[t]);
    ASSERT_EQ(board.earliest_output(), expected) << "step " << step;
  }
}

TEST(PromiseBoard, UntrackedBoardKeepsPromisesOnly) {
  PromiseBoard board;
  board.configure(4, {}, {});
  board.quiet_pushed(2);
  board.promise(2, SimTime::from_ns(5));
  EXPECT_EQ(board.promise_of(2), SimTime::from_ns(5));
  EXPECT_TRUE(board.earliest_output().is_infinite());
  EXPECT_LT(board.promise_of(1), SimTime::zero());  // no promise yet: no send is ever before it
}

}  // namespace
}  // namespace pf::core
