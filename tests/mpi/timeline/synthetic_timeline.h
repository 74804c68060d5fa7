// A synthetic timeline for the tests and the write benchmark: a small
// pipeline-parallel step per GPU (forward and backward compute per layer and
// micro-batch, tensor-parallel all-reduces on the comm stream, pipeline sends
// on the p2p stream, data-parallel reduce-scatters, an optimizer step), with
// events that tie on (gpu, start_ns) across streams, GPU event counts that
// differ, a selected GPU without events, and GPUs scattered over the ranks.
// Everything is a function of the shape and the GPU id, so any rank can
// compute what any other rank wrote.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/timeline/timeline_content.h"

namespace pf::timeline::testing {

struct SyntheticShape {
  std::uint32_t gpus = 16;
  std::uint32_t gpus_per_node = 4;
  std::uint32_t stages = 4;            // gpu g is on pipeline stage g % stages
  std::uint32_t microbatches = 3;      // gpu g runs microbatches + g % 3 of them
  std::uint32_t layers = 3;            // per stage
  std::string timeline_gpus = "0-11";  // the GPUs with /events rows
  std::uint32_t empty_gpu = 5;         // selected, but records nothing (UINT32_MAX for none)
};

// GPU -> rank. Never contiguous blocks: g goes to (g % k + g / k) % k. With
// three or more ranks the last rank simulates only GPUs outside the
// selection, so it writes no /events rows (but /gpu_summary rows).
std::vector<std::uint32_t> scattered_partition(const SyntheticShape& shape, int ranks);

bool is_selected(const SyntheticShape& shape, std::uint32_t gpu);

// In generation order (not sorted); empty for GPUs outside the selection.
std::vector<TimelineEvent> synthetic_gpu_events(const SyntheticShape& shape, std::uint32_t gpu);
std::vector<LinkRow> synthetic_links(const SyntheticShape& shape);      // every link, by link id
int link_owner(const LinkRow& link, int ranks);
GpuSummaryRow synthetic_gpu_summary(const SyntheticShape& shape, std::uint32_t gpu);

// Identical on every rank of one run.
TimelineContent synthetic_content(const SyntheticShape& shape, int ranks);

// What `rank` passes to the writer: its GPUs' events in a rank-dependent
// shuffled order, its links and GPU summaries.
TimelineRows synthetic_rows(const SyntheticShape& shape, const TimelineContent& content, int rank, int ranks);

}  // namespace pf::timeline::testing
