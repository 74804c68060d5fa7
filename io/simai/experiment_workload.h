// The workload an experiment runs: the built-in generator on its model, or
// the SimAI/AICB file its `workload: {simai: FILE}` names (read here, since
// models/ never reads files). Used by `run` and `sweep`.
#pragma once

#include "models/spec/experiment_spec.h"
#include "models/training/training_workload.h"

namespace pf::io {

// Throws pf::ConfigError for a file that cannot be read or parsed, or a
// layout that does not fit the experiment's cluster.
models::training::TrainingWorkload experiment_workload(const models::ExperimentSpec& experiment);

}  // namespace pf::io
