// Entry point for `preflight run|validate|sweep`: an experiment file, plus
// --set overrides, to one validated ExperimentSpec.
//
// Order: read the experiment; read the parts it names by path (model,
// hardware, topology; relative to the experiment file); apply the overrides
// to the merged tree (a part overridden by a path, --set model=x.yaml, is read
// relative to the working directory); parse each part; cross-check the parts.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"   // pf::ConfigError, thrown by every function here
#include "io/config/config_node.h"
#include "models/spec/experiment_spec.h"

namespace pf::config {

// The top-level keys of an experiment: name, workload and the seven parts.
const std::vector<std::string>& experiment_keys();

// --set overrides in order, each followed by reading the `parts` (and the
// faults' hardware) that it named by path, so a later override reaches them.
void apply_overrides_reading_parts(ConfigNode& root, const std::vector<std::string>& overrides,
                                   const std::vector<std::string_view>& parts);

// The merged tree only (for tools that vary keys, such as `sweep`).
ConfigNode load_experiment_tree(const std::string& path, const std::vector<std::string>& overrides);

// Parses and cross-checks a merged tree; fills merged_yaml from it.
models::ExperimentSpec parse_experiment(const ConfigNode& root);

// load_experiment_tree + parse_experiment. Throws pf::ConfigError.
models::ExperimentSpec load_experiment(const std::string& path, const std::vector<std::string>& overrides = {});

// The tree as canonical YAML (sorted keys, paths resolved): what merged_yaml holds.
std::string merged_yaml(const ConfigNode& root);

}  // namespace pf::config
