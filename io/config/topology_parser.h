// The topology part (io/config/README.md, topology): a Clos of up to three
// switch tiers (leaf, spine within a pod, core between pods).
#pragma once

#include "io/config/config_node.h"
#include "models/spec/topology_spec.h"

namespace pf::config {

models::TopologySpec parse_topology(const ConfigNode& node);

}  // namespace pf::config
