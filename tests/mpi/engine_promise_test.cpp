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
