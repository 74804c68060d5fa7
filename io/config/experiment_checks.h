// Checks that span parts of an experiment (io/config/README.md, "Cross-part rules"): shapes
// the model cannot be split into, batches that do not divide, a dtype the GPU
// has no peak for. Each error points at the key a user would change.
#pragma once

#include "io/config/config_node.h"
#include "models/spec/experiment_spec.h"

namespace pf::config {

// `root` is the merged experiment tree `spec` was parsed from; it supplies the
// file and line of each key. Model checks are skipped when the experiment runs
// a SimAI workload without a model.
void check_experiment(const ConfigNode& root, const models::ExperimentSpec& spec, bool has_model);

}  // namespace pf::config
