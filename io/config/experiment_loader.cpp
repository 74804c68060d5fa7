#include "io/config/experiment_loader.h"

#include <filesystem>

#include "io/config/experiment_checks.h"
#include "io/config/fault_parser.h"
#include "io/config/hardware_parser.h"
#include "io/config/map_reader.h"
#include "io/config/model_parser.h"
#include "io/config/output_parser.h"
#include "io/config/overrides.h"
#include "io/config/parallelism_parser.h"
#include "io/config/part_references.h"
#include "io/config/simulation_parser.h"
#include "io/config/topology_parser.h"
#include "io/config/training_parser.h"
#include "io/config/workload_parser.h"
#include "io/config/yaml_reader.h"
#include "io/config/yaml_writer.h"

namespace pf::config {

namespace {

const std::vector<std::string_view> kNamedParts{"model", "hardware", "topology"};

}  // namespace

const std::vector<std::string>& experiment_keys() {
  static const std::vector<std::string> keys{"name",     "workload",    "model",    "hardware",  "topology",
                                             "parallelism", "training", "simulation", "output",
                                             "faults"};
  return keys;
}

ConfigNode load_experiment_tree(const std::string& path, const std::vector<std::string>& overrides) {
  ConfigNode root = read_yaml_file(path);
  if (!root.is_map()) return root;   // parse_experiment says what was expected
  expand_part_references(root, kNamedParts);
  expand_fault_hardware(root);
  apply_overrides_reading_parts(root, overrides, kNamedParts);
  return root;
}

void apply_overrides_reading_parts(ConfigNode& root, const std::vector<std::string>& overrides,
                                   const std::vector<std::string_view>& parts) {
  // One at a time: an override may name a whole part by path (--set
  // hardware=h100.yaml, or a fault's hardware), which later overrides change.
  for (const std::string& text : overrides) {
    apply_override(root, parse_override(text));
    expand_part_references(root, parts);
    expand_fault_hardware(root);
  }
}

std::string merged_yaml(const ConfigNode& root) {
  ConfigNode resolved = root;
  resolve_path_value(resolved, "hardware.gpu.calibration");
  resolve_path_value(resolved, "workload.simai");
  return emit_yaml(resolved);
}

models::ExperimentSpec parse_experiment(const ConfigNode& root) {
  MapReader r(root);
  for (const std::string& key : experiment_keys()) r.accept(key);
  r.finish();

  models::ExperimentSpec spec;
  const std::string stem = std::filesystem::path(root.source().file).stem().string();
  spec.name = r.get_string_or("name", stem.empty() ? "experiment" : stem);
  if (const ConfigNode* workload = r.find("workload")) spec.simai_workload = parse_workload(*workload);
  const ConfigNode* model = r.find("model");
  if (model) {
    spec.model = parse_model(*model);
  } else if (spec.simai_workload.empty()) {
    r.require("model", "a model mapping or file path, or a workload: {simai: FILE}");
  }
  spec.hardware = parse_hardware(r.require("hardware", "a hardware mapping or file path"));
  spec.topology = parse_topology(r.require("topology", "a topology mapping or file path"));
  spec.parallelism = parse_parallelism(section_or_empty(root, "parallelism"), spec.gpu_count());
  spec.training = parse_training(r.require("training", "a mapping with global_batch_size and seq_length"));
  spec.simulation = parse_simulation(section_or_empty(root, "simulation"));
  spec.output = parse_output(section_or_empty(root, "output"), "out/" + spec.name);
  if (const ConfigNode* faults = root.find("faults"))
    spec.faults = parse_faults(*faults, spec.gpu_count(), spec.hardware);
  check_experiment(root, spec, model != nullptr);
  spec.merged_yaml = merged_yaml(root);
  return spec;
}

models::ExperimentSpec load_experiment(const std::string& path, const std::vector<std::string>& overrides) {
  return parse_experiment(load_experiment_tree(path, overrides));
}

}  // namespace pf::config
