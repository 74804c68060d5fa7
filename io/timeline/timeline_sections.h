// Internal to io/timeline: the parts of a timeline file other than `/events`.
// Each function is collective (every rank creates the same objects); only the
// rank with `writes_data` writes dataset contents.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "io/timeline/hdf5_handles.h"
#include "io/timeline/timeline_content.h"

namespace pf::timeline::h5 {

// /meta: attributes format, schema_version, version, ranks, gpus,
// gpus_per_node, timeline_gpus, events; datasets partition (gpu -> rank) and
// gpu_row_offsets (GPU g's /events rows are [offsets[g], offsets[g+1])).
void write_meta(hid_t file, const TimelineContent& content, int ranks, std::span<const std::uint64_t> gpu_row_offsets,
                bool writes_data);

// /kinds, /groups, /link_classes, /vertices.
void write_string_tables(hid_t file, const TimelineContent& content, bool writes_data);

// /links and /gpu_summary with `*_rows` rows; the data is read only where
// writes_data (rank 0 holds the gathered rows, sorted).
void write_links(hid_t file, std::uint64_t rows, const std::vector<LinkRow>& links, bool writes_data);
void write_gpu_summary(hid_t file, std::uint64_t rows, const std::vector<GpuSummaryRow>& summary, bool writes_data);

// /summary: a group whose attributes are the report.
void write_summary(hid_t file, const std::vector<SummaryAttribute>& summary);

// /config: the merged YAML as one string.
void write_config(hid_t file, const std::string& yaml, bool writes_data);

}  // namespace pf::timeline::h5
