// Contract violations end the run on every rank with a clear error: no crash,
// no hang, the same message everywhere.
#include <gtest/gtest.h>

#include <string>

#include "core/engine.h"
#include "models/phold/phold_model.h"

namespace pf {
namespace {

using core::Communicator;
using core::Engine;
using core::EngineConfig;
using core::SimTime;
using core::Sync;

// LP 0 sends to the last LP (on the last rank) only half a lookahead ahead
// once its clock passes `trigger`; otherwise everyone pings itself.
struct ViolatingModel {
  std::uint32_t lps;
  SimTime lookahead;
  SimTime trigger;
  void on_event(Engine& engine, const core::Event& event) {
    if (event.dst == 0 && engine.now() >= trigger) {
      engine.send(engine.now() + SimTime{lookahead.ps / 2}, lps - 1, core::NoPayload{});
      return;
    }
    engine.send(engine.now() + lookahead, event.dst, core::NoPayload{});
  }
};

struct ThrowingModel {
  core::LpId thrower;
  SimTime when;
  SimTime step;
  void on_event(Engine& engine, const core::Event& event) {
    if (event.dst == thrower && engine.now() >= when) throw std::runtime_error("model invariant broken");
    engine.send(engine.now() + step, event.dst, core::NoPayload{});
  }
};

EngineConfig config_for(Sync sync, SimTime lookahead, SimTime end) {
  EngineConfig c;
  c.lookahead = lookahead;
  c.end = end;
  c.sync = sync;
  return c;
}

class EngineErrors : public ::testing::TestWithParam<Sync> {};

TEST_P(EngineErrors, SendBelowLookaheadToAnotherRankIsReportedWithTheLpId) {
  const Communicator world = Communicator::world();
  if (world.size() == 1) GTEST_SKIP() << "no remote sends on one rank";
  const std::uint32_t lps = 16;
  ViolatingModel model{lps, SimTime::from_ns(100), SimTime::from_ns(1000)};
  Engine engine(world, models::phold_block_mapping(lps, world.size()),
                config_for(GetParam(), model.lookahead, SimTime::from_us(int64_t{1000})));
  for (core::LpId lp = 0; lp < lps; ++lp)
    if (engine.is_local(lp)) engine.schedule_initial(model.lookahead, lp, core::NoPayload{});
  try {
    engine.run(model);
    FAIL() << "the violation was not reported";
  } catch (const SimulationError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("LP 0 "), std::string::npos) << what;
    EXPECT_NE(what.find("LP 15"), std::string::npos) << what;
    EXPECT_NE(what.find("lookahead violation"), std::string::npos) << what;
  }
}

TEST_P(EngineErrors, AnExceptionInAHandlerStopsEveryRank) {
  const Communicator world = Communicator::world();
  const std::uint32_t lps = 8;
  ThrowingModel model{lps - 1, SimTime::from_ns(500), SimTime::from_ns(100)};
  Engine engine(world, models::phold_block_mapping(lps, world.size()),
                config_for(GetParam(), model.step, SimTime::from_us(int64_t{100})));
  for (core::LpId lp = 0; lp < lps; ++lp)
    if (engine.is_local(lp)) engine.schedule_initial(model.step, lp, core::NoPayload{});
  try {
    engine.run(model);
    FAIL() << "the exception was swallowed";
  } catch (const SimulationError& e) {
    EXPECT_NE(std::string(e.what()).find("model invariant broken"), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(BothModes, EngineErrors, ::testing::Values(Sync::window, Sync::null_message));

TEST(EngineConfig, ZeroOrNegativeLookaheadIsRefused) {
  for (std::int64_t ps : {0, -5}) {
    try {
      Engine engine(Communicator::world(), std::vector<int>(4, 0), config_for(Sync::window, SimTime{ps}, SimTime::from_ns(10)));
      FAIL() << "lookahead " << ps << " accepted";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("lookahead must be > 0"), std::string::npos) << e.what();
    }
  }
}

TEST(EngineConfig, NullMessageWithoutAnEndIsRefused) {
  // Refused when run() sees the model has no finished() (engine_finish_test.cpp
  // has the models that do).
  struct Silent {
    void on_event(Engine&, const core::Event&) {}
  } model;
  try {
    Engine engine(Communicator::world(), std::vector<int>(4, 0),
                  config_for(Sync::null_message, SimTime::from_ns(1), SimTime::infinity()));
    engine.run(model);
    FAIL() << "an endless null-message run was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("finite end"), std::string::npos) << e.what();
  }
}

TEST(EngineConfig, WindowModeRunsToQuiescenceWithoutAnEnd) {
  // Every LP forwards a token 50 times, then the run must stop by itself.
  struct Countdown {
    void on_event(Engine& engine, const core::Event& event) {
      const auto left = event.as<std::uint32_t>();
      if (left > 0) engine.send(engine.now() + SimTime::from_ns(10), (event.dst + 1) % 8, left - 1);
    }
  } model;
  const Communicator world = Communicator::world();
  Engine engine(world, models::phold_block_mapping(8, world.size()),
                config_for(Sync::window, SimTime::from_ns(10), SimTime::infinity()));
  for (core::LpId lp = 0; lp < 8; ++lp)
    if (engine.is_local(lp)) engine.schedule_initial(SimTime::from_ns(10), lp, std::uint32_t{50});
  engine.run(model);
  EXPECT_EQ(engine.global_stats().committed_events, 8u * 51u);
}

TEST(EngineConfig, LpMappedOutsideTheCommunicatorIsRefused) {
  const Communicator world = Communicator::world();
  std::vector<int> owner(4, 0);
  owner[2] = world.size();  // one past the last rank
  EXPECT_THROW(Engine(world, owner, config_for(Sync::window, SimTime::from_ns(1), SimTime::from_ns(10))), ConfigError);
}

}  // namespace
}  // namespace pf
