// The local communicator (core/communicator.h): one rank and no MPI, so this
// test runs without an MPI session. Its collectives return this rank's value,
// and an engine on it runs the sequential loop (PHOLD's event count follows
// the renewal count; tests/mpi compares its digest with MPI runs).
#include <gtest/gtest.h>

#include "core/communicator.h"
#include "core/engine.h"
#include "core/error.h"
#include "models/phold/phold_model.h"

namespace pf::core {
namespace {

TEST(LocalCommunicator, CollectivesReturnThisRanksValue) {
  const Communicator c = Communicator::local();
  EXPECT_TRUE(c.is_local());
  EXPECT_EQ(c.rank(), 0);
  EXPECT_EQ(c.size(), 1);
  EXPECT_EQ(c.sum(std::uint64_t{42}), 42u);
  EXPECT_EQ(c.min(std::int64_t{-7}), -7);
  EXPECT_EQ(c.max(std::int64_t{9}), 9);
  EXPECT_DOUBLE_EQ(c.max(2.5), 2.5);
  EXPECT_EQ(c.all_gather("abc"), std::vector<std::string>{"abc"});
  EXPECT_TRUE(c.split(3, 0).is_local());
  EXPECT_THROW(c.split(-1, 0), SimulationError);
  EXPECT_THROW((void)c.handle(), SimulationError);
  c.barrier();
}

TEST(LocalCommunicator, AnEngineRunsPholdWithoutMpi) {
  models::PholdParams p;
  p.lps = 64;
  p.start_events = 2;
  p.end = SimTime::from_us(200.0);
  EngineConfig config;
  config.lookahead = p.lookahead;
  config.end = p.end;
  Engine engine(Communicator::local(), models::phold_block_mapping(p.lps, 1), config);
  models::PholdModel model(p);
  model.initialise(engine);
  engine.run(model);
  const double expected = 64.0 * 2 * 200;  // LPs x start events x end / mean (1 us)
  EXPECT_NEAR(static_cast<double>(engine.global_stats().committed_events), expected, expected * 0.03);
  EXPECT_EQ(engine.global_stats().remote_events, 0u);
}

}  // namespace
}  // namespace pf::core
