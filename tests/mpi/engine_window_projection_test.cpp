// A one-rank run's projection of K ranks' windows (core/window_projection.h)
// against the K-rank run itself, recorded window by window
// (EngineConfig::record_windows): the same window count, the same events per
// window on the busiest rank, the same remote events and MPI messages. Run
// under mpiexec on 1, 2 and 4 ranks; on each, K = the world's size, and on
// every rank count the projection for 2, 3 and 8 ranks is checked for its
// invariants.
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
using core::LpId;
using core::SimTime;
using testing::HostRouterModel;

EngineConfig config_for(int ranks, bool per_lp) {
  const HostRouterModel model;
  EngineConfig config;
  config.lookahead = model.hop;
  config.end = SimTime::from_us(std::int64_t{1000});
  if (per_lp && ranks > 1) config.lp_lookahead = model.lp_lookahead(model.host_link);
  return config;
}

core::VirtualRanks virtual_ranks(int ranks, bool per_lp) {
  const EngineConfig c = config_for(ranks, per_lp);
  return {ranks, HostRouterModel::mapping(ranks), c.lookahead, c.lp_lookahead};
}

std::vector<core::ProjectedWindows> project(const std::vector<int>& ranks, bool per_lp) {
  core::WindowProjections projections;
  for (int k : ranks) projections.add(virtual_ranks(k, per_lp));
  HostRouterModel model;
  Engine engine(Communicator::self(), std::vector<int>(HostRouterModel::lps(), 0), config_for(1, per_lp));
  engine.observe(&projections);
  HostRouterModel::seed(engine);
  engine.run(model);
  return projections.finish();
}

// Every rank's window records, in rank order.
std::vector<std::vector<core::WindowRecord>> recorded_run(bool per_lp) {
  const Communicator world = Communicator::world();
  EngineConfig config = config_for(world.size(), per_lp);
  config.record_windows = true;
  HostRouterModel model;
  Engine engine(world, HostRouterModel::mapping(world.size()), config);
  HostRouterModel::seed(engine);
  engine.run(model);
  return engine.global_windows();
}

class WindowProjection : public ::testing::TestWithParam<bool> {};

TEST_P(WindowProjection, EqualsTheRunItProjects) {
  const int ranks = Communicator::world().size();
  if (ranks == 1) GTEST_SKIP() << "a one-rank run has no windows to record";
  const core::ProjectedWindows p = project({ranks}, GetParam()).front();
  const auto recorded = recorded_run(GetParam());
  ASSERT_EQ(recorded.size(), static_cast<std::size_t>(ranks));
  for (const auto& r : recorded) ASSERT_EQ(r.size(), recorded.front().size()) << "windows are global";
  EXPECT_EQ(p.windows, recorded.front().size());
  std::uint64_t events = 0, remote = 0, messages = 0, max_sum = 0;
  for (std::size_t w = 0; w < recorded.front().size(); ++w) {
    std::uint32_t busiest = 0;
    for (const auto& r : recorded) {
      events += r[w].events;
      remote += r[w].remote_events;
      messages += r[w].messages;
      busiest = std::max(busiest, r[w].events);
    }
    max_sum += busiest;
  }
  EXPECT_GT(events, 20000u);
  EXPECT_EQ(p.events, events);
  EXPECT_EQ(p.max_events_sum, max_sum);
  EXPECT_EQ(p.remote_events, remote);
  EXPECT_EQ(p.messages, messages);
}

TEST_P(WindowProjection, InvariantsOfAProjection) {
  const auto all = project({1, 2, 3, 8}, GetParam());
  const core::ProjectedWindows& one = all[0];
  EXPECT_EQ(one.remote_events, 0u);
  EXPECT_EQ(one.max_events_sum, one.events);
  for (const core::ProjectedWindows& p : all) {
    EXPECT_EQ(p.events, one.events) << p.ranks;  // the same events, whatever the split
    EXPECT_GE(p.max_events_sum, (p.events + static_cast<std::uint64_t>(p.ranks) - 1) / static_cast<std::uint64_t>(p.ranks));
    EXPECT_LE(p.max_events_sum, p.events);
    EXPECT_GE(p.max_events_sum, p.busiest_rank_events);
    EXPECT_LE(p.messages, p.remote_events);
    EXPECT_GE(p.windows, 1u);
    std::uint64_t bound = 0;
    for (int c = 0; c < p.classes; ++c) bound += p.bound_by[static_cast<std::size_t>(c)];
    EXPECT_EQ(bound, p.windows) << "every window's bound comes from one class";
  }
  // The hosts' 2.1 us bound is what per-LP lookahead buys: fewer windows.
  if (GetParam()) {
    const auto uniform = project({8}, false).front();
    EXPECT_LT(2 * all[3].windows, uniform.windows) << all[3].windows << " vs " << uniform.windows;
  }
}

TEST(WindowProjectionErrors, RefusedOnMoreThanOneRankAndForBadPlacements) {
  core::WindowProjections projections;
  EXPECT_THROW(core::WindowProjection(core::VirtualRanks{2, {0, 2}, SimTime::from_ns(1), {}}), ConfigError);
  EXPECT_THROW(core::WindowProjection(core::VirtualRanks{2, {0, 1}, SimTime::from_ns(1), {SimTime::from_ns(1)}}),
               ConfigError);
  const Communicator world = Communicator::world();
  if (world.size() == 1) return;
  Engine engine(world, HostRouterModel::mapping(world.size()), config_for(world.size(), false));
  EXPECT_THROW(engine.observe(&projections), ConfigError);
}

INSTANTIATE_TEST_SUITE_P(Lookahead, WindowProjection, ::testing::Bool(),
                         [](const auto& param_info) { return std::string(param_info.param ? "per_lp" : "uniform"); });

}  // namespace
}  // namespace pf
