// ConfigNode -> YAML text, deterministically: mapping keys sorted, so the same
// configuration always gives the same bytes (it is hashed into reports) no
// matter how the files were laid out or in which order keys were written.
#pragma once

#include <string>

#include "io/config/config_node.h"

namespace pf::config {

std::string emit_yaml(const ConfigNode& root);

}  // namespace pf::config
