// The model part (io/config/README.md, model): transformer shape, attention
// kind, mixture-of-experts. Checks that only involve the model itself.
#pragma once

#include "io/config/config_node.h"
#include "models/spec/model_spec.h"

namespace pf::config {

models::ModelSpec parse_model(const ConfigNode& node);

}  // namespace pf::config
