#include "io/timeline/timeline_sections.h"

#include "io/timeline/hdf5_datasets.h"
#include "io/timeline/hdf5_types.h"
#include "io/timeline/timeline_writer.h"

namespace pf::timeline::h5 {

namespace {

Handle create_group(hid_t file, const char* name) {
  return group(H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
               std::string("cannot create group /") + name);
}

}  // namespace

void write_meta(hid_t file, const TimelineContent& content, int ranks, std::span<const std::uint64_t> gpu_row_offsets,
                bool writes_data) {
  const Handle meta = create_group(file, "meta");
  const TimelineMeta& m = content.meta;
  write_attribute(meta, "format", std::string(kTimelineFormat));
  write_attribute(meta, "schema_version", kTimelineSchemaVersion);
  write_attribute(meta, "version", m.version);
  write_attribute(meta, "ranks", static_cast<std::int64_t>(ranks));
  write_attribute(meta, "gpus", static_cast<std::int64_t>(m.gpus));
  write_attribute(meta, "gpus_per_node", static_cast<std::int64_t>(m.gpus_per_node));
  write_attribute(meta, "timeline_gpus", m.timeline_gpus);
  write_attribute(meta, "events", static_cast<std::int64_t>(gpu_row_offsets.back()));
  write_rows(meta, "partition", H5T_NATIVE_UINT32, H5T_STD_U32LE, m.partition.data(), m.partition.size(), writes_data);
  write_rows(meta, "gpu_row_offsets", H5T_NATIVE_UINT64, H5T_STD_U64LE, gpu_row_offsets.data(), gpu_row_offsets.size(),
             writes_data);
}

void write_string_tables(hid_t file, const TimelineContent& content, bool writes_data) {
  write_string_table(file, "kinds", content.kinds, writes_data);
  write_string_table(file, "groups", content.groups, writes_data);
  write_string_table(file, "link_classes", content.link_classes, writes_data);
  write_string_table(file, "vertices", content.vertices, writes_data);
}

void write_links(hid_t file, std::uint64_t rows, const std::vector<LinkRow>& links, bool writes_data) {
  const Handle memory = link_memory_type();
  const Handle packed = packed_copy(memory);
  write_rows(file, "links", memory, packed, links.data(), rows, writes_data);
}

void write_gpu_summary(hid_t file, std::uint64_t rows, const std::vector<GpuSummaryRow>& summary, bool writes_data) {
  const Handle memory = gpu_summary_memory_type();
  const Handle packed = packed_copy(memory);
  write_rows(file, "gpu_summary", memory, packed, summary.data(), rows, writes_data);
}

void write_summary(hid_t file, const std::vector<SummaryAttribute>& summary) {
  const Handle group = create_group(file, "summary");
  for (const SummaryAttribute& a : summary) write_attribute(group, a.name, a.value);
}

void write_config(hid_t file, const std::string& yaml, bool writes_data) { write_text(file, "config", yaml, writes_data); }

}  // namespace pf::timeline::h5
