// One experiment, every part resolved: what `preflight run` and `validate` consume.
#pragma once

#include <string>
#include <vector>

#include "models/spec/fault_spec.h"
#include "models/spec/hardware_spec.h"
#include "models/spec/model_spec.h"
#include "models/spec/simulation_spec.h"
#include "models/spec/topology_spec.h"
#include "models/spec/training_spec.h"

namespace pf::models {

struct ExperimentSpec {
  std::string name;
  ModelSpec model;
  HardwareSpec hardware;
  TopologySpec topology;
  ParallelismSpec parallelism;
  TrainingSpec training;
  SimulationSpec simulation;
  OutputSpec output;
  std::vector<FaultSpec> faults;        // what-if faults, in the order written (empty: a healthy cluster)
  std::string simai_workload;           // non-empty: workload {simai: FILE} replaces the model
  std::string merged_yaml;              // the merged configuration tree, for reports and hashing

  int gpu_count() const { return topology.nodes * hardware.node.gpus_per_node; }
};

}  // namespace pf::models
