// The optional workload section: `workload: {simai: FILE}` runs a SimAI/AICB
// workload text file instead of the built-in model (io/config/README.md).
#pragma once

#include <string>

#include "io/config/config_node.h"

namespace pf::config {

// The SimAI file's path, resolved against the file that names it; it must exist.
std::string parse_workload(const ConfigNode& node);

}  // namespace pf::config
