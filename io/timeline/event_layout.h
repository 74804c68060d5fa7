// Where each rank's events go in the global `/events` dataset.
//
// The file is sorted by (gpu, start_ns). Every GPU is simulated by exactly one
// rank, so each rank sorts its own events and the file is a sequence of
// per-GPU blocks: GPU g's rows start at the exclusive prefix sum of the global
// per-GPU row counts. A rank's GPUs need not be contiguous (METIS or
// round-robin partitions), so it writes a list of row runs; adjacent blocks
// of the same rank are merged into one run to keep the HDF5 selection small.
// Nothing here knows MPI or HDF5: the writer supplies the global counts.
//
// On more than one rank the rows are then redistributed so that rank r
// writes one contiguous, equal share of the file: an HDF5 selection that is a
// union of thousands of runs costs time quadratic in the runs in HDF5 1.10
// (16,384 runs: 26 s to build), and equal shares spread the compression work
// evenly. The plan below says which rows go where; rank_exchange.cpp moves them.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "io/timeline/timeline_event.h"

namespace pf::timeline {

// The file order: (gpu, start_ns), ties broken by every other field so the
// order does not depend on the order events were recorded in, nor on how
// GPUs were spread over ranks.
bool event_before(const TimelineEvent& a, const TimelineEvent& b);
void sort_events(std::span<TimelineEvent> events);

// counts[g] = number of events of GPU g (every event's gpu < gpu_count).
std::vector<std::uint64_t> rows_per_gpu(std::span<const TimelineEvent> events, std::uint32_t gpu_count);

// offsets[g] = rows of GPUs 0..g-1; offsets[gpu_count] = total. Size gpu_count + 1.
std::vector<std::uint64_t> gpu_row_offsets(std::span<const std::uint64_t> counts);

// A range of `/events` rows written from consecutive rows of the local buffer.
struct RowRun {
  std::uint64_t first = 0;
  std::uint64_t count = 0;
  bool operator==(const RowRun&) const = default;
};

// The file runs of a sorted local buffer, ascending; their counts add up to
// events.size(), so local row i maps to the i-th row of the concatenated runs.
std::vector<RowRun> local_row_runs(std::span<const TimelineEvent> sorted_events,
                                   std::span<const std::uint64_t> global_offsets);

// The rows rank `rank` of `ranks` writes: [total * rank / ranks, total * (rank + 1) / ranks).
RowRun balanced_share(std::uint64_t total, int rank, int ranks);

// How many of this rank's rows (in local, file order) go to each rank's share.
std::vector<std::uint64_t> rows_for_each_share(std::span<const RowRun> local_runs, std::uint64_t total, int ranks);

// The runs of `share` that each source rank sends, as row ranges relative to
// the share's first row, ascending; derived from the GPU blocks and the
// partition (gpu -> rank), so no run lists need to be exchanged.
std::vector<std::vector<RowRun>> incoming_runs(std::span<const std::uint64_t> global_offsets,
                                               std::span<const std::uint32_t> partition, RowRun share, int ranks);

}  // namespace pf::timeline
