// Reads a timeline file back (serially, on one process): what `preflight
// trace` and the tests use. Python users read the same file with h5py
// (io/timeline/README.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/timeline/timeline_event.h"

namespace pf::timeline {

struct TimelineInfo {
  std::string version;
  std::int64_t schema_version = 0;
  std::int64_t ranks = 0;
  std::uint32_t gpus = 0;
  std::uint32_t gpus_per_node = 1;
  std::string timeline_gpus;
  std::uint64_t events = 0;
};

class TimelineReader {
 public:
  // Throws TimelineFormatError (exit 2) when `path` is missing, not HDF5, or
  // not a preflight timeline of a schema version this build understands.
  explicit TimelineReader(const std::string& path);
  ~TimelineReader();
  TimelineReader(const TimelineReader&) = delete;
  TimelineReader& operator=(const TimelineReader&) = delete;

  const TimelineInfo& info() const;
  const std::vector<std::string>& kinds() const;
  const std::vector<std::string>& groups() const;
  // GPU g's /events rows are [offsets[g], offsets[g + 1]); size gpus + 1.
  const std::vector<std::uint64_t>& gpu_row_offsets() const;
  std::vector<std::uint32_t> partition() const;

  // Rows [first, first + count) of /events into `out` (resized to count).
  void read_events(std::uint64_t first, std::uint64_t count, std::vector<TimelineEvent>& out) const;
  std::vector<LinkRow> links() const;
  std::vector<GpuSummaryRow> gpu_summary() const;
  std::vector<std::string> link_classes() const;
  std::vector<std::string> vertices() const;
  std::string config_yaml() const;

  struct State;  // the open HDF5 handles; defined in timeline_reader.cpp

 private:
  std::unique_ptr<State> state_;
};

}  // namespace pf::timeline
