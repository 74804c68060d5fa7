// Internal to io/timeline: the small datasets and attributes of a timeline
// file. In parallel HDF5, creating a dataset or attribute is collective (every
// rank calls these with the same arguments); the raw data of these small,
// uncompressed datasets is written by one rank (`writes_data`) with
// independent I/O, which is allowed because they are contiguous and unfiltered.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "io/timeline/hdf5_handles.h"
#include "io/timeline/timeline_content.h"

namespace pf::timeline::h5 {

// A 1-D dataset of `count` elements of `file_type`, filled from `data` (in
// `memory_type`) when writes_data.
void write_rows(hid_t parent, const std::string& name, hid_t memory_type, hid_t file_type, const void* data,
                std::size_t count, bool writes_data);

// A 1-D dataset of fixed-length strings, as wide as the longest one.
void write_string_table(hid_t parent, const std::string& name, const std::vector<std::string>& table,
                        bool writes_data);

// A scalar fixed-length string dataset holding `text` (the YAML configuration).
void write_text(hid_t parent, const std::string& name, const std::string& text, bool writes_data);

// Attributes (collective; every rank writes the same value).
void write_attribute(hid_t object, const std::string& name, const SummaryValue& value);

}  // namespace pf::timeline::h5
