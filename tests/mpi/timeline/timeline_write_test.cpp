// The parallel timeline writer on 1, 2 and 4 ranks, GPUs scattered over the
// ranks: every row present once, sorted by (gpu, start_ns), fields intact,
// tables and metadata as given, and /events identical to a one-rank write of
// the same input (so files written on any number of ranks agree).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/communicator.h"
#include "io/timeline/timeline_writer.h"
#include "tests/mpi/timeline/h5_readback.h"
#include "tests/mpi/timeline/mpi_temp_dir.h"
#include "tests/mpi/timeline/synthetic_timeline.h"

namespace pf::timeline::testing {
namespace {

// The test's own total order, independent of the writer's tie-breaking.
bool full_less(const TimelineEvent& a, const TimelineEvent& b) {
  const auto key = [](const TimelineEvent& e) {
    return std::tie(e.gpu, e.start_ns, e.end_ns, e.stream, e.kind, e.layer, e.microbatch, e.phase, e.bytes, e.flops,
                    e.group);
  };
  return key(a) < key(b);
}

bool same(const TimelineEvent& a, const TimelineEvent& b) { return !full_less(a, b) && !full_less(b, a); }

std::vector<TimelineEvent> all_synthetic_events(const SyntheticShape& shape) {
  std::vector<TimelineEvent> all;
  for (std::uint32_t g = 0; g < shape.gpus; ++g) {
    const auto events = synthetic_gpu_events(shape, g);
    all.insert(all.end(), events.begin(), events.end());
  }
  return all;
}

TimelineWriteStats write_synthetic(const core::Communicator& comm, const SyntheticShape& shape, const std::string& dir,
                                   std::uint64_t chunk_rows) {
  const TimelineContent content = synthetic_content(shape, comm.size());
  TimelineRows rows = synthetic_rows(shape, content, comm.rank(), comm.size());
  TimelineWriteOptions options;
  options.chunk_rows = chunk_rows;
  return write_timeline(comm, dir, content, rows, options);
}

class TimelineWrite : public ::testing::TestWithParam<std::uint64_t> {};

// Chunks of 61 rows straddle GPU blocks and rank boundaries, so several ranks
// write into one compressed chunk; 65536 puts everything in one chunk.
INSTANTIATE_TEST_SUITE_P(ChunkRows, TimelineWrite, ::testing::Values(61, 65536));

TEST_P(TimelineWrite, EveryRowOnceSortedAndIdenticalToAOneRankWrite) {
  const core::Communicator world = core::Communicator::world();
  const MpiTempDir dir(world);
  const SyntheticShape shape;
  const TimelineWriteStats stats = write_synthetic(world, shape, dir.path("n"), GetParam());
  // The sequential reference, written by rank 0 alone inside the same job.
  if (world.rank() == 0) write_synthetic(core::Communicator::self(), shape, dir.path("one"), GetParam());
  world.barrier();
  if (world.rank() != 0) return;

  const std::string path = dir.path("n/timeline.h5");
  EXPECT_EQ(stats.path, path);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
  const std::vector<TimelineEvent> file = read_events_raw(path);
  std::vector<TimelineEvent> expected = all_synthetic_events(shape);
  ASSERT_EQ(file.size(), expected.size());
  EXPECT_EQ(stats.rows, expected.size());
  EXPECT_GT(stats.file_bytes, 0u);

  for (std::size_t i = 1; i < file.size(); ++i)
    ASSERT_TRUE(file[i - 1].gpu < file[i].gpu ||
                (file[i - 1].gpu == file[i].gpu && file[i - 1].start_ns <= file[i].start_ns))
        << "row " << i;
  std::vector<TimelineEvent> file_sorted = file;
  std::sort(file_sorted.begin(), file_sorted.end(), full_less);
  std::sort(expected.begin(), expected.end(), full_less);
  for (std::size_t i = 0; i < file.size(); ++i) ASSERT_TRUE(same(file_sorted[i], expected[i])) << "row " << i;

  // The per-GPU index points at each GPU's block.
  const auto offsets = read_u64_raw(path, "meta/gpu_row_offsets");
  ASSERT_EQ(offsets.size(), shape.gpus + 1);
  for (std::uint32_t g = 0; g < shape.gpus; ++g) {
    EXPECT_EQ(offsets[g + 1] - offsets[g], synthetic_gpu_events(shape, g).size()) << "gpu " << g;
    for (std::uint64_t r = offsets[g]; r < offsets[g + 1]; ++r) ASSERT_EQ(file[r].gpu, g);
  }

  const std::vector<TimelineEvent> reference = read_events_raw(dir.path("one/timeline.h5"));
  ASSERT_EQ(reference.size(), file.size());
  for (std::size_t i = 0; i < file.size(); ++i) ASSERT_TRUE(same(reference[i], file[i])) << "row " << i;
}

TEST(TimelineWrite, SchemaTablesAndMetadataAsSpecified) {
  const core::Communicator world = core::Communicator::world();
  const MpiTempDir dir(world);
  const SyntheticShape shape;
  write_synthetic(world, shape, dir.path(), 1 << 16);
  if (world.rank() != 0) return;
  const std::string path = dir.path("timeline.h5");

  const std::vector<FieldInfo> fields = compound_fields(path, "events");
  const std::vector<std::string> names = {"gpu", "stream", "kind", "start_ns", "end_ns", "layer",
                                          "microbatch", "phase", "bytes", "flops", "group"};
  const std::string kinds = "uuuiiiiuufu";
  const std::vector<std::size_t> sizes = {4, 1, 2, 8, 8, 4, 4, 1, 8, 8, 4};
  ASSERT_EQ(fields.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(fields[i].name, names[i]);
    EXPECT_EQ(fields[i].kind, kinds[i]) << names[i];
    EXPECT_EQ(fields[i].bytes, sizes[i]) << names[i];
  }
  EXPECT_TRUE(events_chunked_shuffled_deflated(path));

  const TimelineContent content = synthetic_content(shape, world.size());
  EXPECT_EQ(read_strings_raw(path, "kinds"), content.kinds);
  EXPECT_EQ(read_strings_raw(path, "groups"), content.groups);
  EXPECT_EQ(read_strings_raw(path, "link_classes"), content.link_classes);
  EXPECT_EQ(read_strings_raw(path, "vertices"), content.vertices);
  EXPECT_EQ(read_config_raw(path), content.config_yaml);

  EXPECT_EQ(read_string_attribute(path, "meta", "format"), "preflight timeline");
  EXPECT_EQ(read_int_attribute(path, "meta", "ranks"), world.size());
  EXPECT_EQ(read_int_attribute(path, "meta", "gpus"), shape.gpus);
  EXPECT_EQ(read_int_attribute(path, "meta", "gpus_per_node"), shape.gpus_per_node);
  EXPECT_EQ(read_string_attribute(path, "meta", "timeline_gpus"), shape.timeline_gpus);
  EXPECT_EQ(read_u32_raw(path, "meta/partition"), scattered_partition(shape, world.size()));

  // Gathered from the ranks that own them, sorted by id / gpu.
  const std::vector<LinkRow> links = read_links_raw(path);
  const std::vector<LinkRow> expected_links = synthetic_links(shape);
  ASSERT_EQ(links.size(), expected_links.size());
  for (std::size_t i = 0; i < links.size(); ++i) {
    EXPECT_EQ(links[i].link, expected_links[i].link);
    EXPECT_EQ(links[i].dst, expected_links[i].dst);
    EXPECT_EQ(links[i].link_class, expected_links[i].link_class);
    EXPECT_EQ(links[i].busy_ns, expected_links[i].busy_ns);
    EXPECT_EQ(links[i].peak_queue_bytes, expected_links[i].peak_queue_bytes);
    EXPECT_EQ(links[i].bandwidth_bytes_per_s, expected_links[i].bandwidth_bytes_per_s);
  }
  const std::vector<GpuSummaryRow> summary = read_gpu_summary_raw(path);
  ASSERT_EQ(summary.size(), shape.gpus);  // every GPU, also those without /events rows
  for (std::uint32_t g = 0; g < shape.gpus; ++g) {
    const GpuSummaryRow want = synthetic_gpu_summary(shape, g);
    EXPECT_EQ(summary[g].gpu, g);
    EXPECT_EQ(summary[g].busy_ns, want.busy_ns);
    EXPECT_EQ(summary[g].idle_ns, want.idle_ns);
    EXPECT_EQ(summary[g].exposed_comm_ns, want.exposed_comm_ns);
    EXPECT_EQ(summary[g].peak_memory_bytes, want.peak_memory_bytes);
  }

  const auto report = nlohmann::json::parse(read_string_attribute(path, "summary", "report_json"));
  EXPECT_DOUBLE_EQ(read_double_attribute(path, "summary", "step_time_ms"), report["step_time_ms"].get<double>());
  EXPECT_DOUBLE_EQ(read_double_attribute(path, "summary", "memory.parameters_gb"), 1.5);
  EXPECT_EQ(read_int_attribute(path, "summary", "simulation.ranks"), world.size());
  EXPECT_EQ(read_string_attribute(path, "summary", "oom"), "null");
}

// A rank may have no rows at all: every rank selects no GPU.
TEST(TimelineWrite, EmptyTimelineIsStillAValidChunkedFile) {
  const core::Communicator world = core::Communicator::world();
  const MpiTempDir dir(world);
  SyntheticShape shape;
  shape.timeline_gpus = "5";  // only the GPU that records nothing
  const TimelineWriteStats stats = write_synthetic(world, shape, dir.path(), 1 << 16);
  EXPECT_EQ(stats.rows, 0u);
  if (world.rank() != 0) return;
  EXPECT_TRUE(read_events_raw(dir.path("timeline.h5")).empty());
  EXPECT_TRUE(events_chunked_shuffled_deflated(dir.path("timeline.h5")));
  EXPECT_EQ(read_gpu_summary_raw(dir.path("timeline.h5")).size(), shape.gpus);
}

}  // namespace
}  // namespace pf::timeline::testing
