// The rows of the HDF5 timeline (io/timeline/README.md) as plain structs: what a
// simulation records per executed operation, per link and per GPU. The field
// names and widths are the file's schema; do not rename them.
#pragma once

#include <cstdint>
#include <type_traits>

namespace pf::timeline {

// Which of a GPU's four streams ran the operation (`/events` field `stream`);
// copy: activation offloading's copies to and from host memory.
enum class Stream : std::uint8_t { compute = 0, comm = 1, p2p = 2, copy = 3 };
inline constexpr std::uint8_t kStreamCount = 4;

// Training phase (`/events` field `phase`).
enum class Phase : std::uint8_t { fwd = 0, bwd = 1, opt = 2 };
inline constexpr std::uint8_t kPhaseCount = 3;

// One `/events` row. In memory the struct has natural alignment (64 bytes);
// in the file the same fields are packed into 52 bytes (packed_event.h).
struct TimelineEvent {
  std::uint32_t gpu = 0;
  std::uint8_t stream = 0;      // Stream
  std::uint16_t kind = 0;       // index into /kinds
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;
  std::int32_t layer = -1;      // -1: not tied to a layer (optimizer step, embedding, ...)
  std::int32_t microbatch = -1; // -1: not tied to a micro-batch
  std::uint8_t phase = 0;       // Phase
  std::uint64_t bytes = 0;      // bytes moved (communication) or touched (compute)
  double flops = 0;
  std::uint32_t group = 0;      // index into /groups (the communicator group, or a placeholder)
};
static_assert(std::is_trivially_copyable_v<TimelineEvent>);

// One `/links` row: a directed link's totals over the run (packet mode).
// `src`/`dst` index `/vertices`, `link_class` indexes `/link_classes`.
struct LinkRow {
  std::uint32_t link = 0;
  std::uint32_t src = 0;
  std::uint32_t dst = 0;
  std::uint8_t link_class = 0;
  std::int64_t busy_ns = 0;               // time the link was transmitting
  std::uint64_t bytes = 0;                // bytes carried
  std::uint64_t peak_queue_bytes = 0;     // deepest queue seen at the link's input
  double bandwidth_bytes_per_s = 0;       // capacity, so readers can compute utilisation
  double nominal_bandwidth_bytes_per_s = 0;  // capacity without the experiment's faults
  std::uint8_t failed = 0;                // 1: a fault took the link down (routes avoid it)
};
static_assert(std::is_trivially_copyable_v<LinkRow>);

// One `/gpu_summary` row: per-GPU totals, recorded for every GPU whether or
// not it has `/events` rows.
struct GpuSummaryRow {
  std::uint32_t gpu = 0;
  std::int64_t busy_ns = 0;           // compute stream busy
  std::int64_t idle_ns = 0;           // step time minus busy (bubbles, waiting on communication)
  std::int64_t exposed_comm_ns = 0;   // communication not overlapped with compute
  std::uint64_t peak_memory_bytes = 0;
  double compute_slowdown = 1.0;      // the faults' compute slowdown of this GPU (1: none)
  double jitter_sigma = 0;            // the faults' per-kernel jitter sigma (0: none)
};
static_assert(std::is_trivially_copyable_v<GpuSummaryRow>);

}  // namespace pf::timeline
