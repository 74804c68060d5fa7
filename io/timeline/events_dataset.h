// Internal to io/timeline: the `/events` dataset, written by all ranks at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "io/timeline/event_layout.h"
#include "io/timeline/hdf5_handles.h"

namespace pf::timeline::h5 {

struct EventStorage {
  std::uint64_t chunk_rows = 1 << 16;  // 64 Ki rows x 52 B = 3.4 MB per chunk
  int deflate_level = 1;               // zlib level: 1 is several times faster than 6 for a few % of size
};

// Creates `/events` (`total_rows` rows, chunked, byte-shuffled and deflated)
// and writes this rank's packed rows into `runs` with one collective
// H5Dwrite. Collective: every rank calls it, including ranks with no rows.
void write_events(hid_t file, std::uint64_t total_rows, const std::byte* packed_rows, std::span<const RowRun> runs,
                  const EventStorage& storage);

}  // namespace pf::timeline::h5
