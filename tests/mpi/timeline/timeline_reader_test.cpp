// Reading a timeline back through io/timeline's reader and exporting it as a
// Chrome trace: what the reader returns equals what the file holds, and the
// trace holds exactly the requested GPUs' events in the requested window.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/communicator.h"
#include "io/timeline/chrome_trace.h"
#include "io/timeline/timeline_error.h"
#include "io/timeline/timeline_reader.h"
#include "io/timeline/timeline_writer.h"
#include "tests/mpi/timeline/h5_readback.h"
#include "tests/mpi/timeline/mpi_temp_dir.h"
#include "tests/mpi/timeline/synthetic_timeline.h"

namespace pf::timeline::testing {
namespace {

class TimelineRead : public ::testing::Test {
 protected:
  void SetUp() override {
    const TimelineContent content = synthetic_content(shape_, world_.size());
    TimelineRows rows = synthetic_rows(shape_, content, world_.rank(), world_.size());
    write_timeline(world_, dir_.path(), content, rows);
  }
  const core::Communicator world_ = core::Communicator::world();
  const MpiTempDir dir_{world_};
  const SyntheticShape shape_{};
};

bool equal(const TimelineEvent& a, const TimelineEvent& b) {
  return a.gpu == b.gpu && a.stream == b.stream && a.kind == b.kind && a.start_ns == b.start_ns &&
         a.end_ns == b.end_ns && a.layer == b.layer && a.microbatch == b.microbatch && a.phase == b.phase &&
         a.bytes == b.bytes && a.flops == b.flops && a.group == b.group;
}

TEST_F(TimelineRead, ReaderReturnsWhatTheFileHolds) {
  if (world_.rank() != 0) return;
  const std::string path = dir_.path("timeline.h5");
  const TimelineReader reader(path);
  const TimelineContent content = synthetic_content(shape_, world_.size());
  EXPECT_EQ(reader.info().gpus, shape_.gpus);
  EXPECT_EQ(reader.info().gpus_per_node, shape_.gpus_per_node);
  EXPECT_EQ(reader.info().ranks, world_.size());
  EXPECT_EQ(reader.info().version, "test");
  EXPECT_EQ(reader.kinds(), content.kinds);
  EXPECT_EQ(reader.groups(), content.groups);
  EXPECT_EQ(reader.partition(), content.meta.partition);
  EXPECT_EQ(reader.config_yaml(), content.config_yaml);
  EXPECT_EQ(reader.vertices(), content.vertices);
  EXPECT_EQ(reader.links().size(), synthetic_links(shape_).size());
  EXPECT_EQ(reader.gpu_summary().size(), shape_.gpus);

  const std::vector<TimelineEvent> raw = read_events_raw(path);
  ASSERT_EQ(reader.info().events, raw.size());
  std::vector<TimelineEvent> block;
  // Odd block sizes exercise the in-place unpacking at every alignment.
  for (const std::uint64_t step : {1ull, 7ull, 1000ull, static_cast<unsigned long long>(raw.size())}) {
    for (std::uint64_t first = 0; first < raw.size(); first += step) {
      const std::uint64_t count = std::min<std::uint64_t>(step, raw.size() - first);
      reader.read_events(first, count, block);
      ASSERT_EQ(block.size(), count);
      for (std::uint64_t i = 0; i < count; ++i) ASSERT_TRUE(equal(block[i], raw[first + i])) << first + i;
    }
  }
  EXPECT_THROW(reader.read_events(raw.size(), 1, block), TimelineFormatError);
}

TEST_F(TimelineRead, TraceHoldsTheRequestedGpusAndWindow) {
  if (world_.rank() != 0) return;
  const TimelineReader reader(dir_.path("timeline.h5"));
  TraceRequest request;
  request.gpus = "2-4,9";
  request.start_ns = 5000;
  request.end_ns = 20000;
  std::ostringstream out;
  const TraceStats stats = write_chrome_trace(reader, request, out);

  std::size_t expected = 0;
  for (const std::uint32_t g : {2u, 3u, 4u, 9u})
    for (const TimelineEvent& e : synthetic_gpu_events(shape_, g))
      if (e.start_ns < request.end_ns && e.end_ns > request.start_ns) ++expected;
  ASSERT_GT(expected, 0u);
  EXPECT_EQ(stats.events, expected);
  EXPECT_EQ(stats.gpus, 4u);

  const auto doc = nlohmann::json::parse(out.str());
  std::size_t complete = 0;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++complete;
    const auto tid = e["tid"].get<std::uint32_t>();
    const std::uint32_t gpu = tid / kStreamCount;
    EXPECT_TRUE(gpu == 9 || (gpu >= 2 && gpu <= 4)) << gpu;
    EXPECT_EQ(e["pid"].get<std::uint32_t>(), gpu / shape_.gpus_per_node);
    EXPECT_LT(e["ts"].get<double>(), 20.0);
    EXPECT_GT(e["ts"].get<double>() + e["dur"].get<double>(), 5.0);
  }
  EXPECT_EQ(complete, expected);
}

TEST_F(TimelineRead, BadGpuListsAndWindowsAreUsageErrors) {
  if (world_.rank() != 0) return;
  const TimelineReader reader(dir_.path("timeline.h5"));
  std::ostringstream out;
  TraceRequest beyond;
  beyond.gpus = "0-16";
  EXPECT_THROW(write_chrome_trace(reader, beyond, out), ConfigError);
  TraceRequest malformed;
  malformed.gpus = "a-b";
  EXPECT_THROW(write_chrome_trace(reader, malformed, out), ConfigError);
  TraceRequest backwards;
  backwards.start_ns = 10;
  backwards.end_ns = 10;
  EXPECT_THROW(write_chrome_trace(reader, backwards, out), ConfigError);
}

TEST_F(TimelineRead, FilesThatAreNotTimelinesAreFormatErrors) {
  if (world_.rank() != 0) return;
  const auto message = [](const std::string& path) {
    try {
      TimelineReader reader(path);
    } catch (const TimelineFormatError& e) {
      EXPECT_EQ(e.exit_code(), 2);
      return std::string(e.what());
    }
    ADD_FAILURE() << path << " was accepted";
    return std::string();
  };
  EXPECT_NE(message(dir_.path("missing.h5")).find("no such file"), std::string::npos);
  std::ofstream(dir_.path("text.h5")) << "not hdf5\n";
  EXPECT_NE(message(dir_.path("text.h5")).find("not an HDF5 file"), std::string::npos);
  write_unrelated_hdf5(dir_.path("other.h5"));
  EXPECT_NE(message(dir_.path("other.h5")).find("not a preflight timeline"), std::string::npos);
}

}  // namespace
}  // namespace pf::timeline::testing
