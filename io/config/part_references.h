// Parts named by path: `model: ../models/gpt3-175b.yaml` in an experiment.
//
// Paths are relative to the file that names them (io/config/README.md); a path
// given on the command line (--set model=x.yaml, --hardware H.yaml) is
// relative to the working directory.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "io/config/config_node.h"

namespace pf::config {

// The file a path-valued scalar names: against the folder of the file the
// scalar was written in, or as given when it came from the command line.
std::filesystem::path resolve_path(const ConfigNode& scalar);

// For each key of `parts` whose value in `root` is a string, replaces it with
// the mapping read from the file it names (keys keep their merged path, e.g.
// "model.layers"; sources stay the part's own file and lines).
void expand_part_references(ConfigNode& root, const std::vector<std::string_view>& parts);

// Rewrites the path-valued scalar at `key_path` (e.g. "hardware.gpu.calibration"),
// if present, to the resolved path, so the merged tree is valid from the
// working directory and its text changes when the file it names changes place.
void resolve_path_value(ConfigNode& root, std::string_view key_path);

}  // namespace pf::config
