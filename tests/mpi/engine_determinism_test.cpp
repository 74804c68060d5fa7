// The engine commits the same events in the same order whatever the number of
// ranks and the synchronisation mode. Each test runs the model on all ranks of
// MPI_COMM_WORLD and compares with a sequential reference run on MPI_COMM_SELF.
#include <gtest/gtest.h>

#include <map>
#include <tuple>
#include <vector>

#include "core/engine.h"
#include "models/phold/phold_model.h"

namespace pf {
namespace {

using core::Communicator;
using core::Engine;
using core::EngineConfig;
using core::SimTime;
using core::Sync;

struct Outcome {
  std::uint64_t events;
  std::uint64_t digest;
  std::uint64_t remote;
};

Outcome run_phold(const Communicator& comm, const models::PholdParams& p, Sync sync) {
  EngineConfig config;
  config.lookahead = p.lookahead;
  config.end = p.end;
  config.sync = sync;
  Engine engine(comm, models::phold_block_mapping(p.lps, comm.size()), config);
  models::PholdModel model(p);
  model.initialise(engine);
  engine.run(model);
  return {engine.global_stats().committed_events, engine.global_digest(), engine.global_stats().remote_events};
}

class PholdDeterminism : public ::testing::TestWithParam<std::tuple<double, std::uint64_t, Sync>> {};

TEST_P(PholdDeterminism, SameEventsAndOrderAsSequential) {
  const auto [remote, seed, sync] = GetParam();
  models::PholdParams p;
  p.lps = 96;
  p.start_events = 3;
  p.remote = remote;
  p.seed = seed;
  p.end = SimTime::from_us(300.0);
  const Outcome reference = run_phold(Communicator::self(), p, Sync::window);
  const Outcome parallel = run_phold(Communicator::world(), p, sync);
  const Outcome local = run_phold(Communicator::local(), p, sync);  // one rank, no MPI at all
  EXPECT_EQ(parallel.events, reference.events);
  EXPECT_EQ(parallel.digest, reference.digest);
  EXPECT_EQ(local.events, reference.events);
  EXPECT_EQ(local.digest, reference.digest);
  // Physics: about lps * start_events * end / mean events (renewal count).
  EXPECT_NEAR(static_cast<double>(reference.events), 96.0 * 3 * 300, 96.0 * 3 * 300 * 0.02);
  if (Communicator::world().size() > 1 && remote > 0) {
    EXPECT_GT(parallel.remote, 0u);
  }
  if (remote == 0) {
    EXPECT_EQ(parallel.remote, 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(SeedsRemoteSync, PholdDeterminism,
                         ::testing::Combine(::testing::Values(0.0, 0.25, 1.0), ::testing::Values(1u, 2u, 3u),
                                            ::testing::Values(Sync::window, Sync::null_message)));

TEST(PholdDeterminism, DifferentSeedsGiveDifferentDigests) {
  models::PholdParams p;
  p.lps = 64;
  p.end = SimTime::from_us(100.0);
  const Outcome a = run_phold(Communicator::world(), p, Sync::window);
  p.seed = 2;
  const Outcome b = run_phold(Communicator::world(), p, Sync::window);
  EXPECT_NE(a.digest, b.digest);
}

// Ties: every event lands on a multiple of the lookahead, so many events at
// one LP share a timestamp and differ only by source. Each LP records the
// sources in the order it committed them.
struct TieModel {
  std::uint32_t lps;
  SimTime step;
  SimTime end;
  std::map<core::LpId, std::vector<std::tuple<std::int64_t, core::LpId, std::uint32_t>>> seen;  // per local LP
  std::uint64_t ties = 0;

  struct Ping {
    std::uint32_t hops;
  };

  void on_event(Engine& engine, const core::Event& event) {
    auto& log = seen[event.dst];
    const Ping ping = event.as<Ping>();
    if (!log.empty() && std::get<0>(log.back()) == event.time.ps) ++ties;
    log.emplace_back(event.time.ps, event.src, ping.hops);
    // Deterministic fan-out that depends on what was received and in which order.
    const auto fan = static_cast<std::uint32_t>(log.size() % 3 == 0 ? 2 : 1);
    for (std::uint32_t k = 0; k < fan; ++k) {
      const core::LpId dst = (event.dst * 7 + ping.hops * 13 + k * 5 + static_cast<core::LpId>(log.size())) % lps;
      const SimTime at = engine.now() + SimTime{step.ps * (1 + (ping.hops + k) % 2)};
      if (at < end && ping.hops < 16) engine.send(at, dst, Ping{ping.hops + 1});
    }
  }
};

std::uint64_t tie_order_hash(const Communicator& comm, Sync sync, std::uint64_t* ties_out) {
  TieModel model{48, SimTime::from_ns(100), SimTime::from_ns(100 * 60), {}, 0};
  EngineConfig config;
  config.lookahead = model.step;
  config.end = model.end;
  config.sync = sync;
  Engine engine(comm, models::phold_block_mapping(model.lps, comm.size()), config);
  for (core::LpId lp = 0; lp < model.lps; ++lp)
    if (engine.is_local(lp)) engine.schedule_initial(model.step, lp, TieModel::Ping{0});
  engine.run(model);
  std::uint64_t h = 0;
  for (const auto& [lp, log] : model.seen) {
    std::uint64_t x = lp + 1;
    for (const auto& [t, src, hops] : log) x = x * 1000003u ^ (static_cast<std::uint64_t>(t) * 31 + src * 7 + hops);
    h += x * 0x9E3779B97F4A7C15ull;
  }
  *ties_out = comm.sum(model.ties);
  return comm.sum(h);
}

TEST(TieBreaking, EqualTimestampsCommitInTheSameOrderOnEveryRankCount) {
  std::uint64_t ties_reference = 0;
  const std::uint64_t reference = tie_order_hash(Communicator::self(), Sync::window, &ties_reference);
  ASSERT_GT(ties_reference, 100u) << "the model must actually produce ties";
  for (Sync sync : {Sync::window, Sync::null_message}) {
    std::uint64_t ties = 0;
    EXPECT_EQ(tie_order_hash(Communicator::world(), sync, &ties), reference) << core::to_string(sync);
    EXPECT_EQ(ties, ties_reference);
  }
}

}  // namespace
}  // namespace pf
