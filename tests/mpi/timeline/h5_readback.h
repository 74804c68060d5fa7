// Test-side reading of a timeline file with the HDF5 C API directly (not
// through io/timeline's reader), so that the writer is checked against the
// file format itself.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/timeline/timeline_event.h"

namespace pf::timeline::testing {

struct FieldInfo {
  std::string name;
  char kind;          // 'u' unsigned, 'i' signed, 'f' float
  std::size_t bytes;
};

// Every /events row in file order (HDF5 converts from the packed file layout
// to TimelineEvent by field name).
std::vector<TimelineEvent> read_events_raw(const std::string& path);
std::vector<FieldInfo> compound_fields(const std::string& path, const std::string& dataset);
bool events_chunked_shuffled_deflated(const std::string& path);
std::vector<std::string> read_strings_raw(const std::string& path, const std::string& dataset);
std::vector<std::uint64_t> read_u64_raw(const std::string& path, const std::string& dataset);
std::vector<std::uint32_t> read_u32_raw(const std::string& path, const std::string& dataset);
std::vector<LinkRow> read_links_raw(const std::string& path);
std::vector<GpuSummaryRow> read_gpu_summary_raw(const std::string& path);
double read_double_attribute(const std::string& path, const std::string& object, const std::string& name);
std::int64_t read_int_attribute(const std::string& path, const std::string& object, const std::string& name);
std::string read_string_attribute(const std::string& path, const std::string& object, const std::string& name);
std::string read_config_raw(const std::string& path);

}  // namespace pf::timeline::testing

namespace pf::timeline::testing {
// An HDF5 file with one unrelated dataset: valid HDF5, not a timeline.
void write_unrelated_hdf5(const std::string& path);
}  // namespace pf::timeline::testing
