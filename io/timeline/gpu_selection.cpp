#include "io/timeline/gpu_selection.h"

#include <algorithm>

#include "core/error.h"
#include "io/config/output_parser.h"

namespace pf::timeline {

GpuSelection::GpuSelection(std::vector<bool> mask, std::string description)
    : mask_(std::move(mask)),
      count_(static_cast<std::uint32_t>(std::count(mask_.begin(), mask_.end(), true))),
      description_(std::move(description)) {}

std::vector<std::uint32_t> GpuSelection::gpus() const {
  std::vector<std::uint32_t> out;
  out.reserve(count_);
  for (std::uint32_t g = 0; g < mask_.size(); ++g)
    if (mask_[g]) out.push_back(g);
  return out;
}

namespace {

GpuSelection first_replica(std::uint32_t gpu_count, std::span<const std::uint32_t> replica, std::string_view why) {
  if (replica.empty())
    throw SimulationError("output.timeline_gpus: " + std::string(why) +
                          " needs the GPUs of data-parallel replica 0, but none were given");
  std::vector<bool> mask(gpu_count, false);
  for (const std::uint32_t g : replica) {
    if (g >= gpu_count)
      throw SimulationError("output.timeline_gpus: replica-0 GPU " + std::to_string(g) + " is outside the " +
                            std::to_string(gpu_count) + " GPUs of the topology");
    mask[g] = true;
  }
  return GpuSelection(std::move(mask), "first_replica");
}

GpuSelection range_list(std::string_view spec, std::uint32_t gpu_count) {
  const auto ranges = config::parse_gpu_range_list(spec);
  if (!ranges)
    throw ConfigError("output.timeline_gpus: expected auto | all | first_replica | a range list like "
                      "\"0-63,512-575\", found \"" + std::string(spec) + "\"");
  std::vector<bool> mask(gpu_count, false);
  for (const config::GpuRange& r : *ranges) {
    if (static_cast<std::uint32_t>(r.last) >= gpu_count)
      throw ConfigError("output.timeline_gpus: expected GPU ids 0-" + std::to_string(gpu_count - 1) +
                        " (the topology has " + std::to_string(gpu_count) + " GPUs), found " +
                        std::to_string(r.last) + " in \"" + std::string(spec) + "\"");
    std::fill(mask.begin() + r.first, mask.begin() + r.last + 1, true);
  }
  return GpuSelection(std::move(mask), std::string(spec));
}

}  // namespace

GpuSelection select_timeline_gpus(std::string_view spec, std::uint32_t gpu_count,
                                  std::span<const std::uint32_t> first_replica_gpus) {
  if (gpu_count == 0) throw SimulationError("output.timeline_gpus: the topology has no GPUs");
  if (spec == "all" || (spec == "auto" && gpu_count <= kAutoAllGpusLimit))
    return GpuSelection(std::vector<bool>(gpu_count, true), "all");
  if (spec == "auto" || spec == "first_replica") return first_replica(gpu_count, first_replica_gpus, spec);
  return range_list(spec, gpu_count);
}

}  // namespace pf::timeline
