// Converting a large local timeline must not hold it twice: the pages of the
// consumed ExecutedOp rows go back to the OS as the TimelineEvent rows fill.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "io/report/tail_release.h"
#include "io/report/timeline_export.h"

namespace pf::report {
namespace {

// Linux: the peak resident set since the last reset, in bytes.
std::int64_t peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  return -1;
}

std::int64_t rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  return -1;
}

// Writing 5 to clear_refs resets VmHWM to the current RSS (Linux >= 4.0).
bool reset_peak_rss() {
  std::ofstream clear("/proc/self/clear_refs");
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

TEST(TailRelease, ShrinksAndKeepsTheKeptElements) {
  std::vector<std::uint64_t> v(1 << 20);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i * 3;
  const std::size_t released = release_tail(v, 1000);
  EXPECT_EQ(v.size(), 1000u);
  for (std::size_t i = 0; i < v.size(); ++i) ASSERT_EQ(v[i], i * 3);
  // 8 MiB dropped: all but the partial pages at its ends are given back.
  EXPECT_GT(released, (std::size_t{8} << 20) - (std::size_t{64} << 10));
  EXPECT_EQ(release_tail(v, 1000), 0u);  // nothing removed, nothing released
  v.resize(2000, 7);                     // the released capacity is usable again
  EXPECT_EQ(v[1999], 7u);
  EXPECT_EQ(v[999], 999u * 3);
}

TEST(TailRelease, LargeLocalTimelineIsNotDuplicated) {
  constexpr std::size_t kOps = std::size_t{1} << 20;  // 64 MiB of ExecutedOp
  const std::int64_t op_bytes = static_cast<std::int64_t>(kOps * sizeof(models::training::ExecutedOp));
  models::training::RunResult::Local local;
  local.ops.resize(kOps);
  for (std::size_t i = 0; i < kOps; ++i) {
    local.ops[i].gpu = static_cast<std::uint32_t>(i % 8);
    local.ops[i].start_ps = static_cast<std::int64_t>(i) * 1000;
    local.ops[i].end_ps = static_cast<std::int64_t>(i) * 1000 + 700;
  }
  models::ParallelismSpec par;
  par.dp = 8;
  const models::workload::RankLayout layout(par);
  models::NodeSpec node;
  node.gpus_per_node = 8;
  node.nics_per_node = 1;
  node.nvlink_bandwidth_gbps = 300;
  node.nic_bandwidth_gbps = 200;
  node.pcie_bandwidth_gbps = 32;
  const auto graph = models::network::build_cluster(node, models::TopologySpec{});

  const std::int64_t before = rss_bytes();
  if (!reset_peak_rss()) GTEST_SKIP() << "/proc/self/clear_refs is not writable here";
  auto rows = timeline_rows(std::move(local), layout, graph, core::SimTime::from_ps(std::int64_t{1} << 40));
  const std::int64_t peak = peak_rss_bytes();
  ASSERT_EQ(rows.events.size(), kOps);
  std::int64_t start_sum = 0;
  for (const auto& e : rows.events) {
    start_sum += e.start_ns;
    ASSERT_EQ(e.end_ns, e.start_ns + 1);  // 700 ps rounds to 1 ns
  }
  EXPECT_EQ(start_sum, static_cast<std::int64_t>(kOps * (kOps - 1) / 2));  // every op once
  // Holding both vectors at once would add 64 MiB over `before`; releasing as
  // we go adds one block and some page rounding.
  EXPECT_LT(peak - before, op_bytes / 4) << "before " << before << " peak " << peak;
}

}  // namespace
}  // namespace pf::report
