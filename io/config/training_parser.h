// The training section (io/config/README.md): batch, sequence, precision, recompute, overlap.
#pragma once

#include "io/config/config_node.h"
#include "models/spec/training_spec.h"

namespace pf::config {

models::TrainingSpec parse_training(const ConfigNode& node);

}  // namespace pf::config
