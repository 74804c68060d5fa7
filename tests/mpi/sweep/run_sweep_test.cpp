// run_sweep through the library: the same rows (less wall time) whatever the
// number of ranks and of ranks per variant, and the same figures as
// run_training on one rank.
#include <gtest/gtest.h>

#include "io/report/report_json.h"
#include "io/sweep/ranking.h"
#include "io/sweep/sweep_runner.h"
#include "io/run/training_run.h"

namespace pf::sweep {
namespace {

const std::string kExperiment = std::string(PF_SOURCE_ROOT) + "/tests/mpi/training/small-pipeline.yaml";
// One 8-GPU server, 4 layers, short sequences: each variant simulates in well under a second.
const std::vector<std::string> kSets = {"topology.nodes=1",         "parallelism.dp=~",
                                        "parallelism.pp=2",         "model.layers=4",
                                        "training.global_batch_size=8", "training.seq_length=256"};

std::vector<PreparedVariant> prepared() {
  return prepare_variants(kExperiment, kSets,
                          expand_grid({{"parallelism.tp", {"1", "2", "3", "4"}}, {"output.timeline", {"true", "false"}}}));
}

void expect_same_rows(const std::vector<SweepRow>& a, const std::vector<SweepRow>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].grid_index, b[i].grid_index);
    EXPECT_EQ(a[i].valid, b[i].valid);
    EXPECT_EQ(a[i].error, b[i].error);
    EXPECT_EQ(a[i].step_time_ms, b[i].step_time_ms) << i;
    EXPECT_EQ(a[i].tokens_per_s, b[i].tokens_per_s) << i;
    EXPECT_EQ(a[i].mfu, b[i].mfu) << i;
    EXPECT_EQ(a[i].peak_memory_gb, b[i].peak_memory_gb) << i;
  }
}

TEST(RunSweep, RowsDoNotDependOnRanksPerVariant) {
  const core::Communicator world = core::Communicator::world();
  const auto variants = prepared();
  SweepRunOptions all;
  const SweepRunResult together = run_sweep(variants, world, all);
  ASSERT_EQ(together.rows.size(), 8u);
  EXPECT_FALSE(together.simulation_failed);
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(together.rows[i].grid_index, i);
  EXPECT_FALSE(together.rows[4].valid);  // tp=3
  EXPECT_FALSE(together.rows[5].valid);
  EXPECT_TRUE(together.rows[0].valid);
  EXPECT_GT(together.rows[0].step_time_ms, 0.0);
  // output.timeline does not change the simulation: pairs tie exactly.
  EXPECT_EQ(together.rows[0].step_time_ms, together.rows[1].step_time_ms);

  SweepRunOptions single;
  single.jobs_per_run = 1;
  int finished_here = 0;
  single.on_finished = [&](const SweepRow&) { ++finished_here; };
  const SweepRunResult apart = run_sweep(variants, world, single);
  expect_same_rows(together.rows, apart.rows);
  // Round robin over `size` groups of one rank: 6 valid variants.
  const int mine = static_cast<int>(dealt_to(6, world.rank(), world.size()).size());
  EXPECT_EQ(finished_here, mine);
}

TEST(RunSweep, FiguresAreThoseOfTheRunReport) {
  const core::Communicator world = core::Communicator::world();
  const auto variants = prepared();
  const SweepRunResult sweep = run_sweep(variants, world, SweepRunOptions{});
  const PreparedVariant& tp2 = variants[2];
  const auto result = run::run_training(*tp2.experiment, core::Communicator::self(), {});
  const auto report = report::report_json(result, *tp2.experiment, "test", tp2.config_sha256);
  EXPECT_EQ(sweep.rows[2].step_time_ms, report["step_time_ms"].get<double>());
  EXPECT_EQ(sweep.rows[2].tokens_per_s, report["tokens_per_s"].get<double>());
  EXPECT_EQ(sweep.rows[2].mfu, report["mfu"].get<double>());
  EXPECT_EQ(sweep.rows[2].hfu, report["hfu"].get<double>());
  EXPECT_EQ(sweep.rows[2].peak_memory_gb, report["peak_memory_gb"].get<double>());
  EXPECT_EQ(sweep.rows[2].oom, !report["oom"].is_null());
}

}  // namespace
}  // namespace pf::sweep
