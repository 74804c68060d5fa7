// The on-disk layout of an `/events` row: io/timeline/README.md's fields in order,
// packed without padding (52 bytes instead of the struct's 64).
//
// Parallel HDF5 (1.10) writes compressed datasets only with collective I/O,
// and collective I/O refuses a datatype conversion ("Can't perform independent
// write with filters in pipeline ... datatype conversions were required"), so
// the writer hands HDF5 bytes already in the file layout. The HDF5 compound
// type is built from the same offsets (hdf5_types.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "io/timeline/timeline_event.h"

namespace pf::timeline {

namespace packed {
inline constexpr std::size_t gpu = 0;
inline constexpr std::size_t stream = gpu + 4;
inline constexpr std::size_t kind = stream + 1;
inline constexpr std::size_t start_ns = kind + 2;
inline constexpr std::size_t end_ns = start_ns + 8;
inline constexpr std::size_t layer = end_ns + 8;
inline constexpr std::size_t microbatch = layer + 4;
inline constexpr std::size_t phase = microbatch + 4;
inline constexpr std::size_t bytes = phase + 1;
inline constexpr std::size_t flops = bytes + 8;
inline constexpr std::size_t group = flops + 8;
inline constexpr std::size_t size = group + 4;
}  // namespace packed
static_assert(packed::size == 52);

void pack_event(const TimelineEvent& e, std::byte* out);
TimelineEvent unpack_event(const std::byte* in);

// Packs events[0..n) into the front of the vector's own storage (row i lands
// at byte i * packed::size <= i * sizeof(TimelineEvent), so the forward pass
// never overwrites a row it has not read). Returns the packed bytes; the
// vector's elements are meaningless afterwards.
std::byte* pack_events_in_place(std::vector<TimelineEvent>& events);

}  // namespace pf::timeline
