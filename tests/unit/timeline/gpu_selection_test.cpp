#include "io/timeline/gpu_selection.h"

#include <gtest/gtest.h>

#include <numeric>

#include "core/error.h"

namespace pf::timeline {
namespace {

std::vector<std::uint32_t> iota(std::uint32_t first, std::uint32_t count) {
  std::vector<std::uint32_t> v(count);
  std::iota(v.begin(), v.end(), first);
  return v;
}

TEST(GpuSelection, AutoKeepsEveryGpuUpToTheLimit) {
  const auto replica = iota(0, 8);
  const GpuSelection s = select_timeline_gpus("auto", kAutoAllGpusLimit, replica);
  EXPECT_EQ(s.count(), kAutoAllGpusLimit);
  EXPECT_TRUE(s.contains(0));
  EXPECT_TRUE(s.contains(kAutoAllGpusLimit - 1));
  EXPECT_FALSE(s.contains(kAutoAllGpusLimit));
  EXPECT_EQ(s.description(), "all");
}

TEST(GpuSelection, AutoAboveTheLimitKeepsReplicaZero) {
  // A 2048-GPU run with TP x PP = 64: replica 0 is a scattered set, not a prefix.
  std::vector<std::uint32_t> replica;
  for (std::uint32_t stage = 0; stage < 8; ++stage)
    for (std::uint32_t tp = 0; tp < 8; ++tp) replica.push_back(stage * 256 + tp);
  const GpuSelection s = select_timeline_gpus("auto", 2048, replica);
  EXPECT_EQ(s.count(), 64u);
  EXPECT_EQ(s.gpus(), [&] {
    auto sorted = replica;
    std::sort(sorted.begin(), sorted.end());
    return sorted;
  }());
  EXPECT_FALSE(s.contains(8));
  EXPECT_TRUE(s.contains(7 * 256 + 7));
  EXPECT_EQ(s.description(), "first_replica");
}

TEST(GpuSelection, AllIgnoresTheLimit) {
  const GpuSelection s = select_timeline_gpus("all", 4096, {});
  EXPECT_EQ(s.count(), 4096u);
}

TEST(GpuSelection, FirstReplicaOnASmallCluster) {
  const auto replica = iota(4, 4);
  const GpuSelection s = select_timeline_gpus("first_replica", 16, replica);
  EXPECT_EQ(s.gpus(), replica);
}

TEST(GpuSelection, RangeList) {
  const GpuSelection s = select_timeline_gpus("0-3, 10,12-13", 16, {});
  EXPECT_EQ(s.gpus(), (std::vector<std::uint32_t>{0, 1, 2, 3, 10, 12, 13}));
  EXPECT_EQ(s.description(), "0-3, 10,12-13");
  EXPECT_EQ(s.gpu_count(), 16u);
}

TEST(GpuSelection, RangeBeyondTheClusterIsAConfigError) {
  try {
    select_timeline_gpus("0-63,512-575", 512, {});
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("output.timeline_gpus"), std::string::npos) << message;
    EXPECT_NE(message.find("575"), std::string::npos) << message;
    EXPECT_NE(message.find("0-511"), std::string::npos) << message;
  }
}

TEST(GpuSelection, MalformedSpecIsAConfigError) {
  for (const char* spec : {"", "some", "3-1", "0-", "-4", "1,,2", "first-replica"})
    EXPECT_THROW(select_timeline_gpus(spec, 16, iota(0, 4)), ConfigError) << spec;
}

TEST(GpuSelection, ReplicaListMustBeGivenAndInRange) {
  EXPECT_THROW(select_timeline_gpus("first_replica", 16, {}), SimulationError);
  EXPECT_THROW(select_timeline_gpus("auto", 2048, {}), SimulationError);
  const std::vector<std::uint32_t> bad = {1, 16};
  EXPECT_THROW(select_timeline_gpus("first_replica", 16, bad), SimulationError);
}

}  // namespace
}  // namespace pf::timeline
