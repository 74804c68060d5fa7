// What goes into a timeline file besides the per-rank rows: string tables,
// the report, the configuration and the run's metadata. Every rank passes an
// identical copy (the writer checks this with a hash, because HDF5 metadata is
// written collectively and must agree).
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "io/timeline/timeline_event.h"

namespace pf::timeline {

// A `/summary` attribute value: scalars as HDF5 scalars, lists of numbers as
// 1-D arrays, strings as UTF-8 variable-length strings.
using SummaryValue = std::variant<double, std::int64_t, std::string, std::vector<double>>;

struct SummaryAttribute {
  std::string name;   // dotted for nested report objects: "memory.parameters_gb"
  SummaryValue value;
};

// `/meta` attributes and datasets.
struct TimelineMeta {
  std::string version;                  // preflight version that wrote the file
  std::uint32_t gpus = 0;               // GPUs simulated (all of them, selected or not)
  std::uint32_t gpus_per_node = 1;      // Chrome trace groups GPUs into nodes with this
  std::string timeline_gpus = "all";    // the output.timeline_gpus setting that chose the rows
  std::vector<std::uint32_t> partition; // gpu -> MPI rank that simulated it (size gpus)
};

struct TimelineContent {
  TimelineMeta meta;
  std::vector<std::string> kinds;        // /kinds: event kind names (TimelineEvent::kind indexes it)
  std::vector<std::string> groups;       // /groups: communicator group names (TimelineEvent::group)
  std::vector<std::string> link_classes; // /link_classes: LinkRow::link_class names
  std::vector<std::string> vertices;     // /vertices: LinkRow::src/dst names (may be empty)
  std::vector<SummaryAttribute> summary; // /summary attributes (the report)
  std::string config_yaml;               // /config: the merged configuration
};

// This rank's rows. The writer sorts and packs `events` in place and leaves it
// empty: a 10-million-row timeline is written without a second copy.
struct TimelineRows {
  std::vector<TimelineEvent> events;       // the GPUs this rank simulated, any order
  std::vector<LinkRow> links;              // links this rank owns
  std::vector<GpuSummaryRow> gpu_summary;  // GPUs this rank simulated
};

}  // namespace pf::timeline
