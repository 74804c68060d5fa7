// The writer's failure paths: whatever goes wrong, on whichever rank, every
// rank throws the same error (nobody hangs in a collective) and no
// timeline.h5 is left in the directory, not even one from an earlier run.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "core/communicator.h"
#include "io/timeline/timeline_error.h"
#include "io/timeline/timeline_writer.h"
#include "tests/mpi/timeline/mpi_temp_dir.h"
#include "tests/mpi/timeline/synthetic_timeline.h"

namespace pf::timeline::testing {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  bool threw = false;
  int exit_code = 0;
  std::string message;
};

template <typename F>
Outcome attempt(F&& f) {
  Outcome o;
  try {
    f();
  } catch (const Error& e) {
    o = {true, e.exit_code(), e.what()};
  }
  return o;
}

void expect_no_timeline(const core::Communicator& world, const std::string& dir) {
  world.barrier();
  if (world.rank() != 0) return;
  EXPECT_FALSE(fs::exists(dir + "/timeline.h5"));
  EXPECT_FALSE(fs::exists(dir + "/timeline.h5.tmp"));
}

// The same outcome everywhere: a failure on one rank is a failure on all.
void expect_everywhere(const core::Communicator& world, const Outcome& o, int exit_code, const std::string& fragment) {
  EXPECT_TRUE(o.threw) << "rank " << world.rank();
  EXPECT_EQ(o.exit_code, exit_code) << o.message;
  EXPECT_NE(o.message.find(fragment), std::string::npos) << o.message;
  const auto messages = world.all_gather(o.message);
  for (const auto& m : messages) EXPECT_EQ(m, messages.front());
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(TimelineFailure, AWriterFailingMidwayLeavesTheEarlierTimelineAsItWas) {
  const core::Communicator world = core::Communicator::world();
  const MpiTempDir dir(world);
  const SyntheticShape shape;
  const TimelineContent content = synthetic_content(shape, world.size());
  {
    TimelineRows rows = synthetic_rows(shape, content, world.rank(), world.size());
    write_timeline(world, dir.path(), content, rows);  // a complete file from an "earlier run"
  }
  const std::string earlier = world.rank() == 0 ? file_bytes(dir.path() + "/timeline.h5") : "";
  for (const char* step : {"create", "events", "summary", "close"}) {
    TimelineRows rows = synthetic_rows(shape, content, world.rank(), world.size());
    TimelineWriteOptions options;
    // The last rank fails after /events is written (or after the file is created / closed).
    options.after_step = [&](std::string_view name) {
      if (name == step && world.rank() == world.size() - 1) throw std::runtime_error("injected failure");
    };
    const Outcome o = attempt([&] { write_timeline(world, dir.path(), content, rows, options); });
    expect_everywhere(world, o, 1, "injected failure");
    EXPECT_TRUE(rows.events.empty());
    world.barrier();
    if (world.rank() == 0) {
      EXPECT_FALSE(fs::exists(dir.path() + "/timeline.h5.tmp")) << step;
      EXPECT_EQ(file_bytes(dir.path() + "/timeline.h5"), earlier) << "after a failure at " << step;
    }
  }
}

// The disk reservation (io/timeline/disk_space.h) is given back: the file
// occupies about its size, not the uncompressed bound it reserved.
TEST(TimelineFailure, TheDiskReservationIsReleasedAfterTheWrite) {
  const core::Communicator world = core::Communicator::world();
  const MpiTempDir dir(world);
  const SyntheticShape shape;
  const TimelineContent content = synthetic_content(shape, world.size());
  TimelineRows rows = synthetic_rows(shape, content, world.rank(), world.size());
  const std::uint64_t events = world.sum(rows.events.size());
  const TimelineWriteStats stats = write_timeline(world, dir.path(), content, rows);
  EXPECT_EQ(stats.rows, events);
  if (world.rank() != 0) return;
  struct stat st {};
  ASSERT_EQ(::stat(stats.path.c_str(), &st), 0);
  const auto allocated = static_cast<std::uint64_t>(st.st_blocks) * 512;
  EXPECT_LE(allocated, static_cast<std::uint64_t>(st.st_size) + (64u << 10)) << "reserved space kept past the end";
}

TEST(TimelineFailure, AnEventOnAnotherRanksGpuIsRefusedEverywhere) {
  const core::Communicator world = core::Communicator::world();
  const MpiTempDir dir(world);
  const SyntheticShape shape;
  const TimelineContent content = synthetic_content(shape, world.size());
  TimelineRows rows = synthetic_rows(shape, content, world.rank(), world.size());
  if (world.rank() == world.size() - 1) {
    TimelineEvent stray;
    stray.gpu = 0;                                   // partition gives gpu 0 to rank 0
    if (world.size() == 1) stray.kind = 999;         // one rank owns everything: use an unknown kind
    rows.events.push_back(stray);
  }
  const Outcome o = attempt([&] { write_timeline(world, dir.path(), content, rows); });
  expect_everywhere(world, o, 1, world.size() == 1 ? "kind 999" : "partition gives that GPU to rank 0");
  expect_no_timeline(world, dir.path());
}

TEST(TimelineFailure, RanksWithDifferentTablesAreRefused) {
  const core::Communicator world = core::Communicator::world();
  if (world.size() == 1) GTEST_SKIP() << "needs two ranks";
  const MpiTempDir dir(world);
  const SyntheticShape shape;
  TimelineContent content = synthetic_content(shape, world.size());
  TimelineRows rows = synthetic_rows(shape, content, world.rank(), world.size());
  if (world.rank() == 1) content.kinds.push_back("only_on_rank_1");
  const Outcome o = attempt([&] { write_timeline(world, dir.path(), content, rows); });
  expect_everywhere(world, o, 1, "different tables");
  expect_no_timeline(world, dir.path());
}

TEST(TimelineFailure, AnOutputDirectoryThatIsAFileIsAnOutputError) {
  const core::Communicator world = core::Communicator::world();
  const MpiTempDir dir(world);
  const std::string blocker = dir.path("not_a_dir");
  if (world.rank() == 0) std::ofstream(blocker) << "x";
  world.barrier();
  const SyntheticShape shape;
  const TimelineContent content = synthetic_content(shape, world.size());
  TimelineRows rows = synthetic_rows(shape, content, world.rank(), world.size());
  bool output_error = false;
  const Outcome o = attempt([&] {
    try {
      write_timeline(world, blocker + "/out", content, rows);
    } catch (const TimelineOutputError&) {
      output_error = true;
      throw;
    }
  });
  EXPECT_TRUE(output_error);
  expect_everywhere(world, o, 2, "cannot create output directory " + blocker + "/out");
}

}  // namespace
}  // namespace pf::timeline::testing
