// Dynamic lookahead (core/promise_board.h): hosts of the host/router model
// send their kernel ends as quiet events and promise the next one that sends
// a packet. The committed events must be exactly the sequential run's on 1, 2
// and 4 ranks in both synchronisation modes, window mode must need fewer
// windows than with the fixed per-LP lookahead alone, a one-rank run's
// projection must still match the K-rank run window for window, and a promise
// the model breaks must stop the run with an error on every rank count.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/engine.h"
#include "host_router_model.h"

namespace pf {
namespace {

using core::Communicator;
using core::Engine;
using core::EngineConfig;
using core::SimTime;
using core::Sync;
using testing::HostRouterModel;
using Outcome = testing::RunOutcome;

EngineConfig config_for(int ranks, Sync sync) {
  const HostRouterModel model;
  EngineConfig config;
  config.lookahead = model.hop;
  config.end = SimTime::from_us(std::int64_t{1000});
  config.sync = sync;
  config.record_windows = true;
  if (ranks > 1) config.lp_lookahead = model.lp_lookahead(model.host_link);
  return config;
}

Outcome run(const Communicator& comm, Sync sync, bool promises, SimTime late = SimTime::zero(),
            std::uint32_t send_one_in = 8) {
  HostRouterModel model;
  model.promises = promises;
  model.send_one_in = send_one_in;
  model.promise_late = late;
  Engine engine(comm, HostRouterModel::mapping(comm.size()), config_for(comm.size(), sync));
  HostRouterModel::seed(engine);
  engine.run(model);
  const core::EngineStats stats = engine.global_stats();
  return {stats.committed_events, engine.global_digest(), stats.windows};
}

// A run of the model as `setup` sets it, with the promises it worked out.
struct Counted {
  Outcome outcome;
  std::uint64_t promises_worked_out;
};
template <class Setup>
Counted run_with(const Communicator& comm, Sync sync, Setup setup) {
  HostRouterModel model;
  model.promises = true;
  model.send_one_in = 64;
  setup(model);
  Engine engine(comm, HostRouterModel::mapping(comm.size()), config_for(comm.size(), sync));
  engine.set_promise_source(&model);
  HostRouterModel::seed(engine);
  engine.run(model);
  const core::EngineStats stats = engine.global_stats();
  return {{stats.committed_events, engine.global_digest(), stats.windows},
          comm.sum(model.promises_worked_out)};
}

// The run as `setup` sets it must stop with an error that says `needle`.
template <class Setup>
void expect_stopped(Sync sync, Setup setup, const char* needle) {
  try {
    run_with(Communicator::world(), sync, setup);
    FAIL() << "the run must stop with an error saying '" << needle << "'";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

class Promises : public ::testing::TestWithParam<Sync> {};

TEST_P(Promises, SameEventsAsSequentialWithFewerWindows) {
  for (const std::uint32_t one_in : {8u, 64u}) {
    const Outcome reference = run(Communicator::self(), Sync::window, false, SimTime::zero(), one_in);
    ASSERT_GT(reference.events, 10000u);
    const Outcome fixed = run(Communicator::world(), GetParam(), false, SimTime::zero(), one_in);
    const Outcome promised = run(Communicator::world(), GetParam(), true, SimTime::zero(), one_in);
    EXPECT_EQ(fixed.digest, reference.digest) << one_in;
    EXPECT_EQ(promised.events, reference.events) << one_in;
    EXPECT_EQ(promised.digest, reference.digest) << one_in;
    if (Communicator::world().size() == 1 || GetParam() != Sync::window) continue;
    // Busy routers (a packet every 8 kernels) bind the windows either way;
    // with a packet every 64 kernels hosts bind many, and then only their
    // kernel ends that send do (each packet's hops still bind a few).
    EXPECT_LE(promised.windows, fixed.windows) << one_in;
    if (one_in == 64) {
      EXPECT_LT(static_cast<double>(promised.windows), 0.9 * static_cast<double>(fixed.windows))
          << promised.windows << " vs " << fixed.windows;
    }
  }
}

// Deferred promises (LpContext::defer_promise): after a kernel end a host
// leaves its last promise standing, and the engine has it worked out again
// only when it would bound a window. The same events, the same windows (a
// deferred promise that matters is restated before the bound is taken), and
// fewer promises worked out on more than one rank (one rank needs none).
TEST_P(Promises, DeferredPromisesGiveTheSameWindowsForLessWork) {
  const Outcome reference = run(Communicator::self(), Sync::window, false, SimTime::zero(), 64);
  const Counted eager = run_with(Communicator::world(), GetParam(), [](HostRouterModel&) {});
  const Counted deferred = run_with(Communicator::world(), GetParam(), [](HostRouterModel& m) { m.defer = true; });
  EXPECT_EQ(deferred.outcome.events, reference.events);
  EXPECT_EQ(deferred.outcome.digest, reference.digest);
  if (Communicator::world().size() == 1) return;
  if (GetParam() == Sync::window) {
    EXPECT_EQ(deferred.outcome.windows, eager.outcome.windows);
  }
  EXPECT_LT(static_cast<double>(deferred.promises_worked_out), 0.5 * static_cast<double>(eager.promises_worked_out))
      << deferred.promises_worked_out << " vs " << eager.promises_worked_out;
}

// Silent events (LpContext::send_silent): a packet's last hop, router to
// host, sends nothing when handled and moves no later send sooner, so it
// bounds no window. The same events on every rank count, and fewer windows
// than when those hops bound them.
TEST_P(Promises, SilentDeliveriesBoundNoWindow) {
  const Outcome reference =
      run_with(Communicator::self(), Sync::window, [](HostRouterModel& m) { m.silent_deliveries = true; }).outcome;
  const Counted plain = run_with(Communicator::world(), GetParam(), [](HostRouterModel&) {});
  const Counted silent =
      run_with(Communicator::world(), GetParam(), [](HostRouterModel& m) { m.silent_deliveries = true; });
  EXPECT_EQ(silent.outcome.events, reference.events);
  EXPECT_EQ(silent.outcome.digest, reference.digest);
  if (Communicator::world().size() == 1 || GetParam() != Sync::window) return;
  EXPECT_LT(silent.outcome.windows, plain.outcome.windows);
}

// A host that answers a silent delivery breaks its sender's claim: the run
// stops with an error naming it, on one rank as on many.
TEST_P(Promises, ABrokenSilenceStopsTheRun) {
  expect_stopped(
      GetParam(),
      [](HostRouterModel& m) {
        m.silent_deliveries = true;
        m.break_silence = true;
      },
      "while handling a silent event");
}

// A delivery that renumbers the host's kernels moves its next packet sooner:
// its promise drops while it handles a silent event, which the run reports.
TEST_P(Promises, ASilentEventThatMovesASendSoonerStopsTheRun) {
  expect_stopped(
      GetParam(),
      [](HostRouterModel& m) {
        m.silent_deliveries = true;
        m.kernels_apart = false;
      },
      "lowered its promise");
}

// Late by 1 us: the first kernel end that sends does so before the promise.
// Caught while handling it, so on one rank as on many.
TEST_P(Promises, ABrokenPromiseStopsTheRun) {
  try {
    run(Communicator::world(), GetParam(), true, SimTime::from_ns(1000));
    FAIL() << "a send before the LP's promise must be reported";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("promise"), std::string::npos) << e.what();
  }
}

// A quiet event counts at its own time only where its receiver is no nearer
// another rank than its sender: a host's packet to its router (0.1 us from
// the cut against the host's 2.1 us) may not be quiet. Refused on more than
// one rank (one rank has a single lookahead for every LP).
TEST_P(Promises, AQuietEventToANearerLpIsRefused) {
  if (Communicator::world().size() == 1) GTEST_SKIP() << "one rank has one lookahead for every LP";
  HostRouterModel model;
  model.promises = true;
  model.quiet_to_router = true;
  Engine engine(Communicator::world(), HostRouterModel::mapping(Communicator::world().size()),
                config_for(Communicator::world().size(), GetParam()));
  HostRouterModel::seed(engine);
  try {
    engine.run(model);
    FAIL() << "a quiet event to an LP with a smaller lookahead must be refused";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("smaller lookahead"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(BothModes, Promises, ::testing::Values(Sync::window, Sync::null_message),
                         [](const auto& param_info) { return param_info.param == Sync::window ? "window" : "null_message"; });

// The one-rank projection of K ranks (core/window_projection.h) follows the
// promises as the K-rank engine does: the same windows, one by one.
TEST(PromiseProjection, MatchesTheRecordedRun) {
  const Communicator world = Communicator::world();
  if (world.size() == 1) GTEST_SKIP() << "projects the world's rank count";
  core::WindowProjections projections;
  const EngineConfig k_config = config_for(world.size(), Sync::window);
  projections.add({world.size(), HostRouterModel::mapping(world.size()), k_config.lookahead, k_config.lp_lookahead});
  {
    HostRouterModel model;
    model.promises = true;
    Engine engine(Communicator::self(), std::vector<int>(HostRouterModel::lps(), 0), config_for(1, Sync::window));
    engine.observe(&projections);
    HostRouterModel::seed(engine);
    engine.run(model);
  }
  const std::vector<core::ProjectedWindows> projected = projections.finish();

  HostRouterModel model;
  model.promises = true;
  Engine engine(world, HostRouterModel::mapping(world.size()), k_config);
  HostRouterModel::seed(engine);
  engine.run(model);
  const std::vector<std::vector<core::WindowRecord>> recorded = engine.global_windows();
  std::uint64_t busiest_sum = 0;
  for (std::size_t w = 0; w < recorded.front().size(); ++w) {
    std::uint32_t busiest = 0;
    for (const auto& rank : recorded) busiest = std::max(busiest, rank[w].events);
    busiest_sum += busiest;
  }
  EXPECT_EQ(projected.front().windows, recorded.front().size());
  EXPECT_EQ(projected.front().max_events_sum, busiest_sum);
  EXPECT_GT(projected.front().bound_by_promise, 0u);
}

}  // namespace
}  // namespace pf
