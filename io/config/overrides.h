// --set KEY=VALUE (io/config/README.md, io/cli/README.md): change one key of the merged tree.
//
// The key is a dotted path from the tree's top level (`parallelism.tp`,
// `hardware.node.nic_bandwidth_gbps`); the value is YAML (a scalar, or a flow
// sequence/mapping such as [8, 8, 7]). Overrides apply after named parts have
// been read in, so they work the same whether a part was inlined or named by
// path. A key that is absent is added: the part's parser then accepts it if it
// is a valid optional key and rejects it, naming the override, if not.
// A numeric component indexes an existing item of a sequence:
// `faults.0.compute_slowdown` is the first fault's slowdown.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "io/config/config_node.h"

namespace pf::config {

struct Override {
  std::string key;     // "parallelism.tp"
  std::string value;   // "4"
  std::string label;   // "--set parallelism.tp=4": the "file" its errors name
};

// Splits "KEY=VALUE"; a missing '=', an empty key or value, or a malformed path is a ConfigError.
Override parse_override(std::string_view text);

// Sets the override's key in `root` (a mapping), creating absent intermediate mappings.
void apply_override(ConfigNode& root, const Override& override_spec);

}  // namespace pf::config
