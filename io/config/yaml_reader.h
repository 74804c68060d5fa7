// yaml-cpp -> ConfigNode: parse YAML and stamp every node with its file, line
// and key path.
#pragma once

#include <string>

#include "io/config/config_node.h"

namespace pf::config {

// Reads `file`; the root gets key path `key_path` ("" for an experiment,
// "model" for a model file named by one). Unreadable files, YAML syntax errors,
// duplicate keys and non-scalar keys are ConfigErrors naming the file and line.
ConfigNode read_yaml_file(const std::string& file, const std::string& key_path = "");

// Parses YAML text as if it were the file `file_label` (used by tests and for
// in-memory configuration).
ConfigNode read_yaml_text(const std::string& text, const std::string& file_label, const std::string& key_path = "");

// Parses the value of an override (a scalar, or a flow sequence/mapping like
// [1, 2]); every node is located at `source` (line 0) under `key_path`.
ConfigNode read_yaml_value(const std::string& text, const SourceLocation& source, const std::string& key_path);

}  // namespace pf::config
