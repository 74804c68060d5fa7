// Timeline rows as Chrome / Perfetto trace JSON (the Trace Event Format:
// "X" complete events with ts/dur in microseconds, "M" metadata events naming
// processes and threads; https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU).
// One process per node (pid = gpu / gpus_per_node), one thread per GPU
// stream (tid = gpu * 3 + stream). Written as a stream: a 10-million-row
// timeline never sits in memory as JSON.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "io/timeline/timeline_event.h"

namespace pf::timeline {

class ChromeTraceWriter {
 public:
  // Writes the opening of the JSON document; `other_data` goes to "otherData".
  ChromeTraceWriter(std::ostream& out, std::uint32_t gpus_per_node, const std::vector<std::string>& kinds,
                    const std::vector<std::string>& groups, const nlohmann::json& other_data);

  // Names GPU `gpu`'s node (once per node) and its three stream threads.
  void declare_gpu(std::uint32_t gpu);
  void add(const TimelineEvent& e);
  // Closes the document; the writer must not be used afterwards.
  void finish();
  std::uint64_t events() const { return events_; }

 private:
  void metadata(const char* name, std::uint32_t pid, const std::uint32_t* tid, const nlohmann::json& args);
  void separator();

  std::ostream& out_;
  std::uint32_t gpus_per_node_;
  std::vector<std::string> kind_json_;   // names already escaped as JSON strings
  std::vector<std::string> group_json_;
  std::vector<bool> node_declared_;
  std::string line_;                     // reused per event: no allocation per row
  std::uint64_t events_ = 0;
  bool first_ = true;
};

// What `preflight trace` exports: GPUs by range list ("" = all) and events
// overlapping [start_ns, end_ns).
struct TraceRequest {
  std::string gpus;
  std::int64_t start_ns = std::numeric_limits<std::int64_t>::min();
  std::int64_t end_ns = std::numeric_limits<std::int64_t>::max();
};

struct TraceStats {
  std::uint64_t events = 0;
  std::uint32_t gpus = 0;  // GPUs with at least one exported event
};

class TimelineReader;

// Throws pf::ConfigError for a bad --gpus list or an empty time window.
TraceStats write_chrome_trace(const TimelineReader& reader, const TraceRequest& request, std::ostream& out);

}  // namespace pf::timeline
