// Pipeline schedules: the op orders Megatron-Core runs, and their bubbles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "models/workload/schedule.h"

namespace pf::models::workload {
namespace {

// "F3" / "B0" (1F1B) or "F1.0" = forward of micro-batch 1, chunk 0.
std::vector<std::string> order(int pp, int stage, int m, int v) {
  StageSchedule s(pp, stage, m, v);
  std::vector<std::string> out;
  for (int i = 0; i < s.steps(); ++i) {
    ScheduleStep st = s.step(i);
    char name[32];
    if (v > 1) {
      std::snprintf(name, sizeof name, "%c%d.%d", st.forward ? 'F' : 'B', st.microbatch, st.chunk);
    } else {
      std::snprintf(name, sizeof name, "%c%d", st.forward ? 'F' : 'B', st.microbatch);
    }
    out.emplace_back(name);
  }
  return out;
}

using Order = std::vector<std::string>;

TEST(Schedule, OneFOneBWarmupSteadyCooldown) {
  // pp = 4, 8 micro-batches: stage r runs pp - r - 1 warm-up forwards.
  EXPECT_EQ(order(4, 0, 8, 1),
            (Order{"F0", "F1", "F2", "F3", "B0", "F4", "B1", "F5", "B2", "F6", "B3", "F7", "B4", "B5", "B6", "B7"}));
  EXPECT_EQ(order(4, 1, 8, 1),
            (Order{"F0", "F1", "F2", "B0", "F3", "B1", "F4", "B2", "F5", "B3", "F6", "B4", "F7", "B5", "B6", "B7"}));
  EXPECT_EQ(order(4, 3, 8, 1),
            (Order{"F0", "B0", "F1", "B1", "F2", "B2", "F3", "B3", "F4", "B4", "F5", "B5", "F6", "B6", "F7", "B7"}));
  // Fewer micro-batches than stages: all forwards first.
  EXPECT_EQ(order(4, 0, 2, 1), (Order{"F0", "F1", "B0", "B1"}));
  EXPECT_EQ(order(1, 0, 3, 1), (Order{"F0", "B0", "F1", "B1", "F2", "B2"}));
}

TEST(Schedule, InterleavedMatchesMegatronCoreOrder) {
  // pp = 2, v = 2, m = 4. Stage 0 warm-up: 2 (pp - 0 - 1) + (v - 1) pp = 4.
  EXPECT_EQ(order(2, 0, 4, 2), (Order{"F0.0", "F1.0", "F0.1", "F1.1", "F2.0", "B0.1", "F3.0", "B1.1", "F2.1",
                                      "B0.0", "F3.1", "B1.0", "B2.1", "B3.1", "B2.0", "B3.0"}));
  // Stage 1 warm-up: (v - 1) pp = 2.
  EXPECT_EQ(order(2, 1, 4, 2), (Order{"F0.0", "F1.0", "F0.1", "B0.1", "F1.1", "B1.1", "F2.0", "B0.0", "F3.0",
                                      "B1.0", "F2.1", "B2.1", "F3.1", "B3.1", "B2.0", "B3.0"}));
  // m = pp: stage 0's warm-up covers everything.
  EXPECT_EQ(order(2, 0, 2, 2), (Order{"F0.0", "F1.0", "F0.1", "F1.1", "B0.1", "B1.1", "B0.0", "B1.0"}));
}

TEST(Schedule, EveryForwardAndBackwardRunsOnceBackwardAfterForward) {
  for (int v : {1, 2, 3}) {
    for (int r = 0; r < 4; ++r) {
      StageSchedule s(4, r, 8, v);
      std::vector<int> fwd(static_cast<std::size_t>(8 * v), 0), bwd(fwd.size(), 0);
      for (int i = 0; i < s.steps(); ++i) {
        ScheduleStep st = s.step(i);
        std::size_t key = static_cast<std::size_t>(st.microbatch * v + st.chunk);
        if (st.forward) {
          ++fwd[key];
        } else {
          EXPECT_EQ(fwd[key], 1) << "backward before forward";
          ++bwd[key];
        }
      }
      EXPECT_TRUE(std::all_of(fwd.begin(), fwd.end(), [](int n) { return n == 1; }));
      EXPECT_TRUE(std::all_of(bwd.begin(), bwd.end(), [](int n) { return n == 1; }));
    }
  }
}

// Micro-batches whose forward ran and backward has not, at most.
int peak_in_flight(int pp, int stage, int m, int v) {
  StageSchedule s(pp, stage, m, v);
  int now = 0, peak = 0;
  for (int i = 0; i < s.steps(); ++i) {
    now += s.step(i).forward ? 1 : -1;
    peak = std::max(peak, now);
  }
  return peak;
}

TEST(Schedule, OneFOneBHoldsAtMostPpMicroBatchesOnStageZero) {
  EXPECT_EQ(peak_in_flight(8, 0, 32, 1), 8);
  EXPECT_EQ(peak_in_flight(8, 5, 32, 1), 3);
  EXPECT_EQ(peak_in_flight(8, 7, 32, 1), 1);
  EXPECT_EQ(peak_in_flight(8, 0, 4, 1), 4);
  // Interleaved stage 0: warm-up + 1 chunk passes, 2 (pp - 1) + (v - 1) pp + 1.
  EXPECT_EQ(peak_in_flight(4, 0, 8, 2), 2 * 3 + 4 + 1);
}

// Runs every stage's steps in order with forward = 1/v and backward = 2/v time
// units per chunk (no communication time) and returns the makespan.
double makespan(int pp, int m, int v) {
  int vstages = pp * v;
  std::vector<double> fwd_done(static_cast<std::size_t>(m * vstages), -1), bwd_done(fwd_done.size(), -1);
  auto at = [&](int mb, int vs) { return static_cast<std::size_t>(mb * vstages + vs); };
  std::vector<StageSchedule> sched;
  for (int r = 0; r < pp; ++r) sched.emplace_back(pp, r, m, v);
  std::vector<int> next(static_cast<std::size_t>(pp), 0);
  std::vector<double> free_at(static_cast<std::size_t>(pp), 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (int r = 0; r < pp; ++r) {
      auto ri = static_cast<std::size_t>(r);
      if (next[ri] == sched[ri].steps()) continue;
      ScheduleStep st = sched[ri].step(next[ri]);
      int vs = st.chunk * pp + r;
      double ready = 0;
      if (st.forward && vs > 0) ready = fwd_done[at(st.microbatch, vs - 1)];
      if (!st.forward) ready = vs < vstages - 1 ? bwd_done[at(st.microbatch, vs + 1)] : fwd_done[at(st.microbatch, vs)];
      if (ready < 0) continue;
      double start = std::max(ready, free_at[ri]);
      double end = start + (st.forward ? 1.0 : 2.0) / v;
      (st.forward ? fwd_done : bwd_done)[at(st.microbatch, vs)] = end;
      free_at[ri] = end;
      ++next[ri];
      progress = true;
    }
  }
  for (std::size_t r = 0; r < next.size(); ++r) EXPECT_EQ(next[r], sched[r].steps()) << "deadlock";
  return *std::max_element(free_at.begin(), free_at.end());
}

TEST(Schedule, BubbleFractionIsPMinusOneOverVM) {
  struct Case { int pp, m, v; };
  for (Case c : {Case{4, 8, 1}, Case{4, 16, 1}, Case{4, 8, 2}, Case{4, 16, 4}, Case{8, 16, 2}, Case{2, 4, 3}}) {
    double ideal = 3.0 * c.m;  // m micro-batches of forward (1) + backward (2) per stage
    double bubble = (makespan(c.pp, c.m, c.v) - ideal) / ideal;
    EXPECT_NEAR(bubble, static_cast<double>(c.pp - 1) / (c.v * c.m), 1e-12) << c.pp << " " << c.m << " " << c.v;
  }
}

}  // namespace
}  // namespace pf::models::workload
