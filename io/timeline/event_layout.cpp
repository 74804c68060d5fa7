#include "io/timeline/event_layout.h"

#include <algorithm>
#include <tuple>

namespace pf::timeline {

bool event_before(const TimelineEvent& a, const TimelineEvent& b) {
  const auto key = [](const TimelineEvent& e) {
    return std::tie(e.gpu, e.start_ns, e.stream, e.end_ns, e.kind, e.phase, e.microbatch, e.layer, e.group,
                    e.bytes, e.flops);
  };
  return key(a) < key(b);
}

void sort_events(std::span<TimelineEvent> events) { std::sort(events.begin(), events.end(), event_before); }

std::vector<std::uint64_t> rows_per_gpu(std::span<const TimelineEvent> events, std::uint32_t gpu_count) {
  std::vector<std::uint64_t> counts(gpu_count, 0);
  for (const TimelineEvent& e : events) ++counts[e.gpu];
  return counts;
}

std::vector<std::uint64_t> gpu_row_offsets(std::span<const std::uint64_t> counts) {
  std::vector<std::uint64_t> offsets(counts.size() + 1, 0);
  for (std::size_t g = 0; g < counts.size(); ++g) offsets[g + 1] = offsets[g] + counts[g];
  return offsets;
}

std::vector<RowRun> local_row_runs(std::span<const TimelineEvent> sorted_events,
                                   std::span<const std::uint64_t> global_offsets) {
  std::vector<RowRun> runs;
  std::size_t i = 0;
  while (i < sorted_events.size()) {
    const std::uint32_t gpu = sorted_events[i].gpu;
    std::size_t end = i;
    while (end < sorted_events.size() && sorted_events[end].gpu == gpu) ++end;
    const std::uint64_t first = global_offsets[gpu];
    const std::uint64_t count = end - i;
    if (!runs.empty() && runs.back().first + runs.back().count == first)
      runs.back().count += count;  // the GPUs in between have no rows: one run
    else
      runs.push_back({first, count});
    i = end;
  }
  return runs;
}

RowRun balanced_share(std::uint64_t total, int rank, int ranks) {
  // floor(total * r / ranks) without the product overflowing: total = q * ranks + rem.
  const auto n = static_cast<std::uint64_t>(ranks);
  const auto bound = [&](int r) {
    const auto k = static_cast<std::uint64_t>(r);
    return total / n * k + total % n * k / n;
  };
  return {bound(rank), bound(rank + 1) - bound(rank)};
}

std::vector<std::uint64_t> rows_for_each_share(std::span<const RowRun> local_runs, std::uint64_t total, int ranks) {
  std::vector<std::uint64_t> counts(static_cast<std::size_t>(ranks), 0);
  int dest = 0;
  for (const RowRun& run : local_runs) {
    std::uint64_t row = run.first;
    const std::uint64_t end = run.first + run.count;
    while (row < end) {
      RowRun share = balanced_share(total, dest, ranks);
      while (row >= share.first + share.count) share = balanced_share(total, ++dest, ranks);
      const std::uint64_t take = std::min(end, share.first + share.count) - row;
      counts[static_cast<std::size_t>(dest)] += take;
      row += take;
    }
  }
  return counts;
}

std::vector<std::vector<RowRun>> incoming_runs(std::span<const std::uint64_t> global_offsets,
                                               std::span<const std::uint32_t> partition, RowRun share, int ranks) {
  std::vector<std::vector<RowRun>> runs(static_cast<std::size_t>(ranks));
  if (share.count == 0) return runs;
  const std::uint64_t share_end = share.first + share.count;
  // The first GPU whose block ends after the share starts.
  std::size_t gpu = static_cast<std::size_t>(
      std::upper_bound(global_offsets.begin() + 1, global_offsets.end(), share.first) - global_offsets.begin() - 1);
  for (; gpu < partition.size() && global_offsets[gpu] < share_end; ++gpu) {
    const std::uint64_t first = std::max(global_offsets[gpu], share.first);
    const std::uint64_t last = std::min(global_offsets[gpu + 1], share_end);
    if (first >= last) continue;
    std::vector<RowRun>& from = runs[partition[gpu]];
    const RowRun run{first - share.first, last - first};
    if (!from.empty() && from.back().first + from.back().count == run.first)
      from.back().count += run.count;
    else
      from.push_back(run);
  }
  return runs;
}

}  // namespace pf::timeline
