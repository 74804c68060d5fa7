// write_chrome_trace: the reading side of `preflight trace` (declared in chrome_trace.h).
#include <algorithm>

#include "core/error.h"
#include "io/config/output_parser.h"
#include "io/timeline/chrome_trace.h"
#include "io/timeline/timeline_reader.h"

namespace pf::timeline {

namespace {

constexpr std::uint64_t kBlockRows = 1 << 20;  // rows read per HDF5 call: ~64 MB in memory

std::vector<std::uint32_t> requested_gpus(const std::string& spec, std::uint32_t gpu_count) {
  std::vector<std::uint32_t> gpus;
  if (spec.empty()) {
    for (std::uint32_t g = 0; g < gpu_count; ++g) gpus.push_back(g);
    return gpus;
  }
  const auto ranges = config::parse_gpu_range_list(spec);
  if (!ranges) throw ConfigError("--gpus: expected a range list like \"0-7,64-71\", found \"" + spec + "\"");
  for (const config::GpuRange& r : *ranges) {
    if (static_cast<std::uint32_t>(r.last) >= gpu_count)
      throw ConfigError("--gpus: expected GPU ids 0-" + std::to_string(gpu_count - 1) + " (the timeline has " +
                        std::to_string(gpu_count) + " GPUs), found " + std::to_string(r.last));
    for (int g = r.first; g <= r.last; ++g) gpus.push_back(static_cast<std::uint32_t>(g));
  }
  std::sort(gpus.begin(), gpus.end());
  gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
  return gpus;
}

// GPU g's rows are sorted by start: stop at the first that starts after the
// window; skip those that end before it.
std::uint64_t export_gpu(const TimelineReader& reader, std::uint32_t gpu, const TraceRequest& request,
                         ChromeTraceWriter& writer, std::vector<TimelineEvent>& block) {
  const std::vector<std::uint64_t>& offsets = reader.gpu_row_offsets();
  std::uint64_t exported = 0;
  for (std::uint64_t row = offsets[gpu]; row < offsets[gpu + 1]; row += kBlockRows) {
    reader.read_events(row, std::min(kBlockRows, offsets[gpu + 1] - row), block);
    for (const TimelineEvent& e : block) {
      if (e.start_ns >= request.end_ns) return exported;
      if (e.end_ns < request.start_ns || (e.end_ns == request.start_ns && e.end_ns > e.start_ns)) continue;
      if (exported == 0) writer.declare_gpu(gpu);
      writer.add(e);
      ++exported;
    }
  }
  return exported;
}

}  // namespace

TraceStats write_chrome_trace(const TimelineReader& reader, const TraceRequest& request, std::ostream& out) {
  if (request.end_ns <= request.start_ns)
    throw ConfigError("--end-ns: expected a time after --start-ns (" + std::to_string(request.start_ns) +
                      "), found " + std::to_string(request.end_ns));
  const TimelineInfo& info = reader.info();
  const std::vector<std::uint32_t> gpus = requested_gpus(request.gpus, info.gpus);
  const nlohmann::json other = {{"generator", "preflight trace"},
                                {"preflight_version", info.version},
                                {"gpus", info.gpus},
                                {"gpus_per_node", info.gpus_per_node},
                                {"timeline_gpus", info.timeline_gpus}};
  ChromeTraceWriter writer(out, info.gpus_per_node, reader.kinds(), reader.groups(), other);
  TraceStats stats;
  std::vector<TimelineEvent> block;
  for (const std::uint32_t gpu : gpus)
    if (export_gpu(reader, gpu, request, writer, block) > 0) ++stats.gpus;
  writer.finish();
  stats.events = writer.events();
  return stats;
}

}  // namespace pf::timeline
