// Entry point for `preflight collective`: the cluster without a training job.
// The tree holds hardware, topology and simulation (io/cli/README.md), given as
// two files or taken from an experiment; --set applies to it as usual.
#pragma once

#include <string>
#include <vector>

#include "core/error.h"   // pf::ConfigError, thrown by every function here
#include "io/config/config_node.h"
#include "models/spec/fault_spec.h"
#include "models/spec/hardware_spec.h"
#include "models/spec/simulation_spec.h"
#include "models/spec/topology_spec.h"

namespace pf::config {

struct ClusterSpec {
  models::HardwareSpec hardware;
  models::TopologySpec topology;
  models::SimulationSpec simulation;
  std::vector<models::FaultSpec> faults;   // link, switch and server-hardware faults apply to the fabric
  std::string merged_yaml;   // the merged tree as canonical YAML, for reports and hashing

  int gpu_count() const { return topology.nodes * hardware.node.gpus_per_node; }
};

// --hardware H.yaml --topology T.yaml: paths relative to the working directory.
ConfigNode load_cluster_tree(const std::string& hardware_path, const std::string& topology_path,
                             const std::vector<std::string>& overrides);

// Reads hardware, topology and simulation from a merged tree. Other experiment
// keys (model, parallelism, ...) are allowed and ignored; unknown ones are errors.
ClusterSpec parse_cluster(const ConfigNode& root);

ClusterSpec load_cluster(const std::string& hardware_path, const std::string& topology_path,
                         const std::vector<std::string>& overrides = {});

// --experiment E.yaml: the cluster an experiment names.
ClusterSpec load_cluster_from_experiment(const std::string& experiment_path,
                                         const std::vector<std::string>& overrides = {});

}  // namespace pf::config
