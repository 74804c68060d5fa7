// The per-rank parallel HDF5 timeline (io/timeline/README.md): every MPI rank hands
// in the rows of the GPUs and links it simulated and the writer produces one
// file, DIR/timeline.h5, with collective I/O. The file appears only when it is
// complete: it is written as timeline.h5.tmp and renamed by rank 0 after every
// rank has closed it; on any failure the temporary file is removed and an
// earlier run's timeline.h5 is left as it was (a killed run leaves only the
// .tmp, which the next write removes).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "core/communicator.h"
#include "io/timeline/timeline_content.h"

namespace pf::timeline {

inline constexpr std::string_view kTimelineFileName = "timeline.h5";
inline constexpr std::string_view kTimelineFormat = "preflight timeline";  // /meta attribute `format`
inline constexpr std::int64_t kTimelineSchemaVersion = 1;                   // /meta attribute `schema_version`

struct TimelineWriteOptions {
  std::uint64_t chunk_rows = 1 << 16;  // /events rows per chunk (>= 1)
  int deflate_level = 1;               // 0-9
  // Called on every rank after each step ("check", "prepare", "sort",
  // "layout", "gather", "space", "create", "reserve", "meta", "events", "tables", "summary",
  // "config", "close", "publish"); an exception from it fails the write like
  // any other error.
  // For progress output, and for tests that make a write fail midway.
  std::function<void(std::string_view step)> after_step;
  // The free-space check and the disk reservation (disk_space.h). Off only
  // in tests of what happens when a write fails inside HDF5 all the same.
  bool guard_space = true;
};

struct TimelineWriteStats {
  std::string path;             // DIR/timeline.h5
  std::uint64_t rows = 0;       // /events rows, all ranks
  std::uint64_t file_bytes = 0;
  double wall_s = 0;            // slowest rank
};

// Collective over `comm`: every rank calls it, also ranks with no rows.
// `content` must be identical on every rank. `rows.events` is sorted and
// packed in place and left empty (no second copy of a large timeline).
// Throws on every rank alike: TimelineOutputError (exit 2) when DIR or the
// file cannot be created or written, pf::SimulationError for inconsistent
// input (an event on a GPU the partition gives to another rank, an unknown
// kind, ranks passing different tables).
TimelineWriteStats write_timeline(const core::Communicator& comm, const std::string& dir,
                                  const TimelineContent& content, TimelineRows& rows,
                                  const TimelineWriteOptions& options = {});

}  // namespace pf::timeline
