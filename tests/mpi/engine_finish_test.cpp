// Null-message runs with no end time stop when every rank's model reports
// finished(): the same work is committed as by a window run to quiescence and
// by a sequential run, the far-off events left queued are not committed, the
// idle tail costs no clock rounds, and errors still reach every rank.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <tuple>

#include "core/engine.h"
#include "tests/mpi/relay_model.h"

namespace pf {
namespace {

using core::Communicator;
using core::Engine;
using core::EngineConfig;
using core::SimTime;
using core::Sync;
using testing::RelayModel;
using testing::RelayParams;

// The same model with finished() hidden: what every model looked like before.
struct Unaware {
  RelayModel& model;
  void on_event(Engine& engine, const core::Event& event) { model.on_event(engine, event); }
};
static_assert(core::ReportsFinished<RelayModel>);
static_assert(!core::ReportsFinished<Unaware>);

struct Outcome {
  std::uint64_t work_digest;
  std::uint64_t work_events;
  std::uint64_t rounds;
  std::uint64_t watchdog;
  core::EngineStats stats;
  SimTime worker_finish;  // latest finish time over workers (infinity if one did not finish)
};

Outcome run_relay(const Communicator& comm, const RelayParams& p, Sync sync, SimTime end, bool tell_finished = true) {
  RelayModel model(p);
  EngineConfig config;
  config.lookahead = p.lookahead;
  config.end = end;
  config.sync = sync;
  Engine engine(comm, model.mapping(comm.size()), config);
  model.initialise(engine);
  if (tell_finished) {
    engine.run(model);
  } else {
    Unaware unaware{model};
    engine.run(unaware);
  }
  std::int64_t latest = 0;
  for (core::LpId i = 0; i < p.workers; ++i)
    if (engine.is_local(i)) latest = std::max(latest, model.finish_time(i).ps);
  return {comm.sum(model.local_work_digest()), comm.sum(model.local_work_events()),
          comm.sum(model.local_rounds_done()), comm.sum(model.watchdog_fired()), engine.global_stats(),
          SimTime{comm.max(latest)}};
}

std::uint64_t total_rounds(const RelayParams& p) {
  std::uint64_t sum = 0;
  for (core::LpId i = 0; i < p.workers; ++i) sum += p.rounds * (1 + i % 3);
  return sum;
}

TEST(EngineFinish, NullMessageWithoutAnEndStopsWhenEveryRankFinished) {
  const RelayParams p;
  const Communicator world = Communicator::world();
  const Outcome reference = run_relay(Communicator::self(), p, Sync::window, SimTime::infinity());
  const Outcome window = run_relay(world, p, Sync::window, SimTime::infinity());
  const Outcome null = run_relay(world, p, Sync::null_message, SimTime::infinity());

  // Closed form: every round is one request and one reply.
  ASSERT_EQ(reference.rounds, total_rounds(p));
  EXPECT_EQ(reference.work_events, 2 * total_rounds(p));
  EXPECT_LT(reference.worker_finish, p.watchdog);
  for (const Outcome* o : {&window, &null}) {
    EXPECT_EQ(o->rounds, reference.rounds);
    EXPECT_EQ(o->work_events, reference.work_events);
    EXPECT_EQ(o->work_digest, reference.work_digest);
    EXPECT_EQ(o->worker_finish, reference.worker_finish);
  }
  // To quiescence, the watchdog 1 s later is committed; the null-message run
  // stopped when the work was done and left it queued.
  EXPECT_EQ(reference.watchdog, 1u);
  EXPECT_EQ(window.watchdog, 1u);
  EXPECT_EQ(window.stats.committed_events, reference.stats.committed_events);
  if (world.size() > 1) {
    EXPECT_EQ(null.watchdog, 0u);
    EXPECT_EQ(null.stats.committed_events, reference.stats.committed_events - 1);
    EXPECT_GT(null.stats.remote_events, 0u);
  } else {
    EXPECT_EQ(null.watchdog, 1u) << "one rank runs to quiescence, as before";
  }
}

TEST(EngineFinish, AFiniteEndStillEndsTheRunFirst) {
  // The end falls mid-work: no rank with workers finishes, the others do, and
  // the run still stops at the end with the same events as a sequential run.
  const RelayParams p;
  const SimTime end = SimTime::from_us(std::int64_t{120});
  const Outcome reference = run_relay(Communicator::self(), p, Sync::window, end);
  const Outcome null = run_relay(Communicator::world(), p, Sync::null_message, end);
  ASSERT_LT(reference.rounds, total_rounds(p)) << "the end must cut the work short";
  ASSERT_GT(reference.rounds, 0u);
  EXPECT_EQ(null.rounds, reference.rounds);
  EXPECT_EQ(null.work_digest, reference.work_digest);
  EXPECT_EQ(null.stats.committed_events, reference.stats.committed_events);
}

TEST(EngineFinish, ADeadlockedModelEndsTheNullMessageRunInsteadOfHanging) {
  // Worker 1 stops answering itself: finished() never comes true anywhere it
  // lives. Once the traffic and the watchdog have drained, the run must end
  // (quiescence) with exactly what a sequential run to quiescence committed.
  RelayParams p;
  p.stall_lp = 1;
  p.stall_round = 5;
  p.watchdog = SimTime::from_us(std::int64_t{400});
  const Outcome reference = run_relay(Communicator::self(), p, Sync::window, SimTime::infinity());
  ASSERT_LT(reference.rounds, total_rounds(p));
  ASSERT_EQ(reference.watchdog, 1u);
  const Outcome null = run_relay(Communicator::world(), p, Sync::null_message, SimTime::infinity());
  EXPECT_EQ(null.rounds, reference.rounds);
  EXPECT_EQ(null.work_digest, reference.work_digest);
  EXPECT_EQ(null.watchdog, 1u);
  EXPECT_EQ(null.stats.committed_events, reference.stats.committed_events);
  EXPECT_TRUE(null.worker_finish.is_infinite()) << "a worker that never finished has no finish time";
}

TEST(EngineFinish, NullMessageWithoutAnEndNeedsFinished) {
  const RelayParams p;
  try {
    run_relay(Communicator::world(), p, Sync::null_message, SimTime::infinity(), /*tell_finished=*/false);
    FAIL() << "an endless null-message run of a model without finished() was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("finite end"), std::string::npos) << e.what();
  }
}

TEST(EngineFinish, AnIdleTailCostsNoClockRounds) {
  const Communicator world = Communicator::world();
  if (world.size() == 1) GTEST_SKIP() << "no null messages on one rank";
  const RelayParams p;
  const Outcome now = run_relay(world, p, Sync::null_message, SimTime::infinity());
  // Before: the same model, told to stop at an end time. `least`: the end
  // just after the last work event, which only an oracle could set; `before`:
  // 2 ms later, an end a user might have guessed.
  const SimTime tail = SimTime::from_us(std::int64_t{2000});
  const Outcome least = run_relay(world, p, Sync::null_message, now.worker_finish + SimTime{1}, false);
  const Outcome before = run_relay(world, p, Sync::null_message, now.worker_finish + tail, false);
  EXPECT_EQ(least.work_digest, now.work_digest);
  EXPECT_EQ(before.work_digest, now.work_digest);
  // A clock a rank sends is at most a lookahead past the clock it last got
  // from the same neighbour, so between any two ranks crossing the tail takes
  // about tail / lookahead messages (half of that, for margin).
  const auto tail_cost = [&](const Outcome& o) {
    return static_cast<std::int64_t>(o.stats.null_messages) - static_cast<std::int64_t>(least.stats.null_messages);
  };
  EXPECT_GE(tail_cost(before), tail.ps / p.lookahead.ps / 2);
  // Now the tail costs what the finish barrier takes to complete, a small
  // fraction of even this short guessed tail.
  EXPECT_LT(tail_cost(now) * 10, tail_cost(before));
  if (world.rank() == 0)
    std::printf("[ figures  ] %d ranks, work done at %.1f us, lookahead %.1f us: null messages %llu with end = "
                "infinity and finished(); %llu with end = work + 1 ps; %llu with end = work + %.0f us (wall %.3f s, "
                "%.3f s, %.3f s)\n",
                world.size(), now.worker_finish.us(), p.lookahead.us(),
                static_cast<unsigned long long>(now.stats.null_messages),
                static_cast<unsigned long long>(least.stats.null_messages),
                static_cast<unsigned long long>(before.stats.null_messages), tail.us(), now.stats.wall_s,
                least.stats.wall_s, before.stats.wall_s);
}

// A worker (on a rank that is still working) or a forwarder (on the last
// rank, finished from the start and waiting on its barrier) breaks at 200 us,
// after ranks with less work have finished: every rank stops with the message.
class EngineFinishErrors : public ::testing::TestWithParam<std::tuple<bool, bool>> {};

TEST_P(EngineFinishErrors, AFailureAfterAnotherRankFinishedReachesEveryRank) {
  const auto [forwarder, by_throw] = GetParam();
  RelayParams p;
  p.fail_lp = forwarder ? p.workers + p.forwarders - 1 : p.workers - 1;
  p.fail_after = SimTime::from_us(std::int64_t{200});
  p.fail_by_throw = by_throw;
  const Communicator world = Communicator::world();
  const Outcome clean = run_relay(Communicator::self(), RelayParams{}, Sync::window, SimTime::infinity());
  ASSERT_GT(clean.worker_finish, p.fail_after) << "the failure must come while work is left";
  try {
    run_relay(world, p, Sync::null_message, SimTime::infinity());
    FAIL() << "the failure was swallowed";
  } catch (const SimulationError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("relay LP " + std::to_string(p.fail_lp)), std::string::npos) << what;
    EXPECT_NE(what.find("on purpose"), std::string::npos) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(WhoAndHow, EngineFinishErrors,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool()));

}  // namespace
}  // namespace pf
