// The output section (io/config/README.md): where results go and which GPUs get
// timeline rows.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/config/config_node.h"
#include "models/spec/simulation_spec.h"

namespace pf::config {

// An inclusive range of GPU ids from output.timeline_gpus.
struct GpuRange {
  int first = 0;
  int last = 0;
};

// "0-63,512-575" -> {{0,63},{512,575}}; nullopt when the text is not a range
// list (a single id "7" is the range 7-7; first must not exceed last).
std::optional<std::vector<GpuRange>> parse_gpu_range_list(std::string_view text);

// `default_dir` is used when output.dir is absent (the experiment uses out/<name>).
models::OutputSpec parse_output(const ConfigNode& node, const std::string& default_dir);

}  // namespace pf::config
