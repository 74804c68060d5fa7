// The simulation section (io/config/README.md): network fidelity, synchronisation,
// partitioning and the random seed. Every key has a default.
#pragma once

#include "io/config/config_node.h"
#include "models/spec/simulation_spec.h"

namespace pf::config {

models::SimulationSpec parse_simulation(const ConfigNode& node);

}  // namespace pf::config
