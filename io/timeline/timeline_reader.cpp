#include "io/timeline/timeline_reader.h"

#include <filesystem>

#include "io/timeline/hdf5_read.h"
#include "io/timeline/hdf5_types.h"
#include "io/timeline/packed_event.h"
#include "io/timeline/timeline_error.h"
#include "io/timeline/timeline_writer.h"

namespace pf::timeline {

struct TimelineReader::State {
  std::string path;
  h5::Handle file;
  h5::Handle events;
  h5::Handle event_type;
  TimelineInfo info;
  std::vector<std::string> kinds;
  std::vector<std::string> groups;
  std::vector<std::uint64_t> offsets;
};

namespace {

// Runs `f`, turning any HDF5-level failure into "PATH: <what>" (exit 2).
template <typename F>
auto as_format_error(const std::string& path, F&& f) {
  try {
    return f();
  } catch (const TimelineOutputError& e) {
    throw TimelineFormatError(path + ": " + e.what());
  }
}

void open_file(TimelineReader::State& s) {
  if (!std::filesystem::exists(s.path)) throw TimelineFormatError(s.path + ": no such file");
  if (H5Fis_hdf5(s.path.c_str()) <= 0) throw TimelineFormatError(s.path + ": not an HDF5 file");
  s.file = h5::file(H5Fopen(s.path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), "cannot open");
  if (H5Lexists(s.file, "meta", H5P_DEFAULT) <= 0)
    throw TimelineFormatError(s.path + ": not a preflight timeline (no /meta group)");
  const h5::Handle meta = h5::group(H5Gopen2(s.file, "meta", H5P_DEFAULT), "cannot open /meta");
  if (!h5::has_attribute(meta, "format") || h5::read_string_attribute(meta, "format") != kTimelineFormat)
    throw TimelineFormatError(s.path + ": not a preflight timeline (/meta has no format = \"" +
                              std::string(kTimelineFormat) + "\")");
  TimelineInfo& i = s.info;
  i.schema_version = h5::read_int_attribute(meta, "schema_version");
  if (i.schema_version != kTimelineSchemaVersion)
    throw TimelineFormatError(s.path + ": timeline schema version " + std::to_string(i.schema_version) +
                              ", this preflight reads version " + std::to_string(kTimelineSchemaVersion));
  i.version = h5::read_string_attribute(meta, "version");
  i.ranks = h5::read_int_attribute(meta, "ranks");
  i.gpus = static_cast<std::uint32_t>(h5::read_int_attribute(meta, "gpus"));
  i.gpus_per_node = static_cast<std::uint32_t>(h5::read_int_attribute(meta, "gpus_per_node"));
  i.timeline_gpus = h5::read_string_attribute(meta, "timeline_gpus");
  i.events = static_cast<std::uint64_t>(h5::read_int_attribute(meta, "events"));
  s.offsets = h5::read_vector<std::uint64_t>(meta, "gpu_row_offsets", H5T_NATIVE_UINT64);
  if (s.offsets.size() != static_cast<std::size_t>(i.gpus) + 1 || s.offsets.back() != i.events ||
      h5::row_count(s.file, "events") != i.events)
    throw TimelineFormatError(s.path + ": /meta/gpu_row_offsets does not match /events");
  s.kinds = h5::read_string_table(s.file, "kinds");
  s.groups = h5::read_string_table(s.file, "groups");
  s.events = h5::dataset(H5Dopen2(s.file, "events", H5P_DEFAULT), "cannot open /events");
  s.event_type = h5::event_type();
}

}  // namespace

TimelineReader::TimelineReader(const std::string& path) : state_(std::make_unique<State>()) {
  h5::silence_errors();
  state_->path = path;
  as_format_error(path, [&] {
    open_file(*state_);
    return 0;
  });
}

TimelineReader::~TimelineReader() = default;

const TimelineInfo& TimelineReader::info() const { return state_->info; }
const std::vector<std::string>& TimelineReader::kinds() const { return state_->kinds; }
const std::vector<std::string>& TimelineReader::groups() const { return state_->groups; }
const std::vector<std::uint64_t>& TimelineReader::gpu_row_offsets() const { return state_->offsets; }

std::vector<std::uint32_t> TimelineReader::partition() const {
  return as_format_error(state_->path, [&] {
    const h5::Handle meta = h5::group(H5Gopen2(state_->file, "meta", H5P_DEFAULT), "cannot open /meta");
    return h5::read_vector<std::uint32_t>(meta, "partition", H5T_NATIVE_UINT32);
  });
}

void TimelineReader::read_events(std::uint64_t first, std::uint64_t count, std::vector<TimelineEvent>& out) const {
  if (first + count > state_->info.events)
    throw TimelineFormatError(state_->path + ": rows " + std::to_string(first) + "+" + std::to_string(count) +
                              " are beyond the " + std::to_string(state_->info.events) + " rows of /events");
  out.resize(count);
  if (count == 0) return;
  // Read packed rows into the back of the buffer and unpack front to back:
  // unpacked row i (64 B at 64i) never overtakes packed row i+1 (52 B at
  // 12*count + 52(i+1)) because 64i + 64 <= 12 count + 52 (i + 1) for i < count.
  auto* bytes = reinterpret_cast<std::byte*>(out.data());
  std::byte* packed_rows = bytes + count * (sizeof(TimelineEvent) - packed::size);
  as_format_error(state_->path, [&] {
    const hsize_t start[1] = {first};
    const hsize_t rows[1] = {count};
    const h5::Handle file_space = h5::dataspace(H5Dget_space(state_->events), "/events");
    h5::check(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, nullptr, rows, nullptr), "/events selection");
    const h5::Handle memory_space = h5::dataspace(H5Screate_simple(1, rows, nullptr), "/events");
    h5::check(H5Dread(state_->events, state_->event_type, memory_space, file_space, H5P_DEFAULT, packed_rows),
              "cannot read /events");
    return 0;
  });
  for (std::uint64_t i = 0; i < count; ++i) out[i] = unpack_event(packed_rows + i * packed::size);
}

std::vector<LinkRow> TimelineReader::links() const {
  return as_format_error(state_->path, [&] {
    const h5::Handle type = h5::link_memory_type();
    return h5::read_vector<LinkRow>(state_->file, "links", type);
  });
}

std::vector<GpuSummaryRow> TimelineReader::gpu_summary() const {
  return as_format_error(state_->path, [&] {
    const h5::Handle type = h5::gpu_summary_memory_type();
    return h5::read_vector<GpuSummaryRow>(state_->file, "gpu_summary", type);
  });
}

std::vector<std::string> TimelineReader::link_classes() const {
  return as_format_error(state_->path, [&] { return h5::read_string_table(state_->file, "link_classes"); });
}

std::vector<std::string> TimelineReader::vertices() const {
  return as_format_error(state_->path, [&] { return h5::read_string_table(state_->file, "vertices"); });
}

std::string TimelineReader::config_yaml() const {
  return as_format_error(state_->path, [&] { return h5::read_text(state_->file, "config"); });
}

}  // namespace pf::timeline
