// Internal to io/timeline: reading the timeline's small datasets and
// attributes back (serial). Failures throw TimelineOutputError with HDF5's
// innermost message; the reader turns them into TimelineFormatError.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/timeline/hdf5_handles.h"

namespace pf::timeline::h5 {

std::uint64_t row_count(hid_t parent, const std::string& name);

// Reads all rows of a 1-D dataset into `out` (room for row_count rows of
// `memory_type`); HDF5 converts from the file type by member name.
void read_rows(hid_t parent, const std::string& name, hid_t memory_type, void* out);

template <typename T>
std::vector<T> read_vector(hid_t parent, const std::string& name, hid_t memory_type) {
  std::vector<T> out(row_count(parent, name));
  if (!out.empty()) read_rows(parent, name, memory_type, out.data());
  return out;
}

std::vector<std::string> read_string_table(hid_t parent, const std::string& name);
std::string read_text(hid_t parent, const std::string& name);

bool has_attribute(hid_t object, const std::string& name);
std::int64_t read_int_attribute(hid_t object, const std::string& name);
std::string read_string_attribute(hid_t object, const std::string& name);

}  // namespace pf::timeline::h5
