// The experiment's `faults:` list (io/config/README.md, faults): stragglers,
// mixed GPUs, per-kernel jitter, degraded or failed links and switches.
//
// Names are checked for form here (a GPU list within the cluster, "leaf3" or
// "leaf3->spine1"); whether a named vertex or link exists in the fabric is
// checked when the cluster graph is built (models/network/faults.h), whose
// errors carry each fault's `origin` (file, line, key).
#pragma once

#include <vector>

#include "io/config/config_node.h"
#include "models/spec/fault_spec.h"
#include "models/spec/hardware_spec.h"

namespace pf::config {

// `node`: the faults sequence; `gpu_count` and `hardware`: the experiment's,
// against which GPU lists and replacement hardware are checked.
std::vector<models::FaultSpec> parse_faults(const ConfigNode& node, int gpu_count, const models::HardwareSpec& hardware);

// Replaces each `faults[i].hardware: FILE` with the mapping the file holds
// (relative to the file that names it), so the merged tree carries it.
void expand_fault_hardware(ConfigNode& root);

// "17", "512-519", "0-3,8-11", "all" -> ascending distinct GPU ids in [0, gpu_count).
std::vector<int> parse_gpu_list(const ConfigNode& node, int gpu_count);

}  // namespace pf::config
