// Internal to io/timeline: the HDF5 datatypes of the timeline's datasets.
#pragma once

#include <cstddef>

#include "io/timeline/hdf5_handles.h"

namespace pf::timeline::h5 {

// `/events`: the packed 52-byte compound of packed_event.h, used both in
// memory and in the file (no conversion: see packed_event.h).
Handle event_type();

// `/links` and `/gpu_summary`: the natural struct layout in memory and the
// packed layout in the file (HDF5 converts; these are written independently,
// uncompressed, by rank 0).
Handle link_memory_type();
Handle gpu_summary_memory_type();
Handle packed_copy(hid_t type);

// Fixed-length NUL-terminated UTF-8 strings of `width` bytes (>= 1). Used for
// datasets: parallel HDF5 cannot write variable-length data.
Handle fixed_string_type(std::size_t width);
// Variable-length UTF-8 strings: for attributes, which h5py reads as str.
Handle variable_string_type();

}  // namespace pf::timeline::h5
