// Which GPUs get `/events` rows: io/config/README.md's output.timeline_gpus
// (auto | all | "0-63,512-575" | first_replica). Every GPU is simulated and
// summarised in `/gpu_summary` either way; the selection only bounds the
// size of `/events` on large clusters.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace pf::timeline {

// `auto` keeps every GPU up to this many, else only data-parallel replica 0.
inline constexpr std::uint32_t kAutoAllGpusLimit = 1024;

class GpuSelection {
 public:
  GpuSelection() = default;
  GpuSelection(std::vector<bool> mask, std::string description);

  bool contains(std::uint32_t gpu) const { return gpu < mask_.size() && mask_[gpu]; }
  std::uint32_t count() const { return count_; }
  std::uint32_t gpu_count() const { return static_cast<std::uint32_t>(mask_.size()); }
  std::vector<std::uint32_t> gpus() const;  // ascending
  // What was chosen, for /meta: "all", "first_replica", or the range list.
  const std::string& description() const { return description_; }

 private:
  std::vector<bool> mask_;
  std::uint32_t count_ = 0;
  std::string description_;
};

// `spec` is output.timeline_gpus; `first_replica_gpus` the TP x PP x CP GPUs of
// data-parallel replica 0 (needed for first_replica and for auto above the
// limit). Throws pf::ConfigError for a malformed spec or a GPU id outside
// 0..gpu_count-1, pf::SimulationError for an inconsistent replica list.
GpuSelection select_timeline_gpus(std::string_view spec, std::uint32_t gpu_count,
                                  std::span<const std::uint32_t> first_replica_gpus);

}  // namespace pf::timeline
