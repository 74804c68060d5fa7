#include "io/timeline/event_layout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

namespace pf::timeline {
namespace {

TimelineEvent ev(std::uint32_t gpu, std::int64_t start, std::uint8_t stream = 0, std::int64_t end = -1) {
  TimelineEvent e;
  e.gpu = gpu;
  e.start_ns = start;
  e.end_ns = end < 0 ? start + 10 : end;
  e.stream = stream;
  return e;
}

bool same_row(const TimelineEvent& a, const TimelineEvent& b) {
  return !event_before(a, b) && !event_before(b, a);
}

TEST(EventLayout, SortsByGpuThenStart) {
  std::vector<TimelineEvent> events = {ev(2, 5), ev(0, 30), ev(1, 7), ev(0, 10), ev(2, 1)};
  sort_events(events);
  for (std::size_t i = 1; i < events.size(); ++i) {
    const auto& a = events[i - 1];
    const auto& b = events[i];
    EXPECT_TRUE(a.gpu < b.gpu || (a.gpu == b.gpu && a.start_ns <= b.start_ns)) << i;
  }
  EXPECT_EQ(events.front().start_ns, 10);
  EXPECT_EQ(events.back().start_ns, 5);
}

// Ties on (gpu, start_ns) are common (a collective launched as a kernel
// starts); the file order must not depend on the order events were recorded.
TEST(EventLayout, OrderOfTiesDoesNotDependOnInputOrder) {
  std::vector<TimelineEvent> events;
  for (std::uint8_t stream = 0; stream < 3; ++stream)
    for (int k = 0; k < 4; ++k) {
      TimelineEvent e = ev(3, 100, stream, 100 + 10 * k);
      e.kind = static_cast<std::uint16_t>(k % 2);
      e.bytes = static_cast<std::uint64_t>(k);
      events.push_back(e);
    }
  std::vector<TimelineEvent> reference = events;
  sort_events(reference);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    std::shuffle(events.begin(), events.end(), rng);
    std::vector<TimelineEvent> sorted = events;
    sort_events(sorted);
    for (std::size_t i = 0; i < sorted.size(); ++i) ASSERT_TRUE(same_row(sorted[i], reference[i])) << trial << " " << i;
  }
  EXPECT_EQ(reference.front().stream, 0);  // compute before comm before p2p at the same instant
  EXPECT_EQ(reference.back().stream, 2);
}

TEST(EventLayout, OffsetsAreAnExclusivePrefixSum) {
  const std::vector<TimelineEvent> events = {ev(0, 1), ev(0, 2), ev(2, 1), ev(3, 1), ev(3, 2), ev(3, 3)};
  const auto counts = rows_per_gpu(events, 5);
  EXPECT_EQ(counts, (std::vector<std::uint64_t>{2, 0, 1, 3, 0}));
  EXPECT_EQ(gpu_row_offsets(counts), (std::vector<std::uint64_t>{0, 2, 2, 3, 6, 6}));
  EXPECT_EQ(gpu_row_offsets(std::vector<std::uint64_t>{}), (std::vector<std::uint64_t>{0}));
}

TEST(EventLayout, RunsOfANonContiguousRankAreMergedOnlyWhenAdjacentInTheFile) {
  // Global rows per GPU: gpu 0:2, 1:3, 2:0, 3:1, 4:2. Rank A owns 1 and 3, rank B owns 0, 2 and 4.
  const std::vector<std::uint64_t> offsets = gpu_row_offsets(std::vector<std::uint64_t>{2, 3, 0, 1, 2});
  std::vector<TimelineEvent> a = {ev(3, 5), ev(1, 1), ev(1, 2), ev(1, 3)};
  sort_events(a);
  // gpu 1 -> rows 2..4; gpu 3 -> row 5: gpu 2 has no rows, so the blocks touch and merge.
  EXPECT_EQ(local_row_runs(a, offsets), (std::vector<RowRun>{{2, 4}}));

  std::vector<TimelineEvent> b = {ev(4, 9), ev(0, 1), ev(4, 1), ev(0, 2)};
  sort_events(b);
  // gpu 0 -> rows 0..1, gpu 4 -> rows 6..7: rank A's rows lie between.
  EXPECT_EQ(local_row_runs(b, offsets), (std::vector<RowRun>{{0, 2}, {6, 2}}));
}

TEST(EventLayout, RunsOfAllRanksTileTheFileExactly) {
  // 40 GPUs, scattered over 3 ranks, some with no rows, some ranks with none at all.
  const std::uint32_t gpus = 40;
  std::mt19937 rng(11);
  std::vector<int> owner(gpus);
  std::vector<std::vector<TimelineEvent>> per_rank(3);
  for (std::uint32_t g = 0; g < gpus; ++g) {
    owner[g] = static_cast<int>(rng() % 2) * 2;  // ranks 0 and 2 only; rank 1 owns nothing
    const int rows = static_cast<int>(rng() % 4);
    for (int i = 0; i < rows; ++i) per_rank[static_cast<std::size_t>(owner[g])].push_back(ev(g, rows - i));
  }
  std::vector<std::uint64_t> global(gpus, 0);
  for (auto& events : per_rank) {
    sort_events(events);
    const auto local = rows_per_gpu(events, gpus);
    for (std::uint32_t g = 0; g < gpus; ++g) global[g] += local[g];
  }
  const auto offsets = gpu_row_offsets(global);
  std::vector<int> writer(offsets.back(), -1);
  for (int r = 0; r < 3; ++r) {
    const auto& events = per_rank[static_cast<std::size_t>(r)];
    const auto runs = local_row_runs(events, offsets);
    std::uint64_t local_row = 0;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (i > 0) {
        EXPECT_GT(runs[i].first, runs[i - 1].first + runs[i - 1].count);  // merged when adjacent
      }
      for (std::uint64_t row = runs[i].first; row < runs[i].first + runs[i].count; ++row, ++local_row) {
        ASSERT_EQ(writer[row], -1) << "row " << row << " written twice";
        writer[row] = r;
        // The local row that lands here belongs to the GPU whose block holds the file row.
        const std::uint32_t gpu = events[local_row].gpu;
        EXPECT_GE(row, offsets[gpu]);
        EXPECT_LT(row, offsets[gpu + 1]);
      }
    }
    EXPECT_EQ(local_row, events.size());
    if (events.empty()) {
      EXPECT_TRUE(runs.empty());
    }
  }
  EXPECT_EQ(std::count(writer.begin(), writer.end(), -1), 0);
}

TEST(EventLayout, BalancedSharesTileTheFile) {
  for (const std::uint64_t total : {0ull, 1ull, 7ull, 1000003ull}) {
    for (const int ranks : {1, 2, 3, 4, 7}) {
      std::uint64_t next = 0;
      for (int r = 0; r < ranks; ++r) {
        const RowRun share = balanced_share(total, r, ranks);
        EXPECT_EQ(share.first, next);
        EXPECT_LE(share.count, total / static_cast<std::uint64_t>(ranks) + 1);  // equal to within one row
        EXPECT_GE(share.count, total / static_cast<std::uint64_t>(ranks));
        next += share.count;
      }
      EXPECT_EQ(next, total) << total << " rows, " << ranks << " ranks";
    }
  }
}

// What each rank sends (computed from its own rows) must be exactly what each
// share expects from it (computed from the partition and the global offsets).
TEST(EventLayout, ExchangePlanSendsWhatEachShareExpects) {
  const std::uint32_t gpus = 37;
  const int ranks = 4;
  std::mt19937 rng(5);
  std::vector<std::uint32_t> partition(gpus);
  std::vector<std::vector<TimelineEvent>> per_rank(ranks);
  for (std::uint32_t g = 0; g < gpus; ++g) {
    partition[g] = static_cast<std::uint32_t>(rng() % 3);  // rank 3 owns no GPU
    const int rows = static_cast<int>(rng() % 50);
    for (int i = 0; i < rows; ++i) per_rank[partition[g]].push_back(ev(g, i));
  }
  std::vector<std::uint64_t> global(gpus, 0);
  for (auto& events : per_rank) {
    sort_events(events);
    const auto local = rows_per_gpu(events, gpus);
    for (std::uint32_t g = 0; g < gpus; ++g) global[g] += local[g];
  }
  const auto offsets = gpu_row_offsets(global);
  const std::uint64_t total = offsets.back();
  for (int dest = 0; dest < ranks; ++dest) {
    const RowRun share = balanced_share(total, dest, ranks);
    const auto incoming = incoming_runs(offsets, partition, share, ranks);
    std::vector<int> covered(share.count, 0);
    for (int src = 0; src < ranks; ++src) {
      const auto sent = rows_for_each_share(local_row_runs(per_rank[src], offsets), total, ranks);
      std::uint64_t expected = 0;
      for (const RowRun& run : incoming[src]) {
        expected += run.count;
        for (std::uint64_t r = run.first; r < run.first + run.count; ++r) {
          ++covered[r];
          const std::uint64_t file_row = share.first + r;
          const auto gpu = std::upper_bound(offsets.begin(), offsets.end(), file_row) - offsets.begin() - 1;
          EXPECT_EQ(partition[static_cast<std::size_t>(gpu)], static_cast<std::uint32_t>(src)) << file_row;
        }
      }
      EXPECT_EQ(sent[dest], expected) << "from rank " << src << " to rank " << dest;
    }
    EXPECT_EQ(std::count(covered.begin(), covered.end(), 1), static_cast<long>(share.count)) << dest;
  }
}

}  // namespace
}  // namespace pf::timeline
