#include "io/config/cluster_loader.h"

#include "io/config/experiment_loader.h"
#include "io/config/fault_parser.h"
#include "io/config/hardware_parser.h"
#include "io/config/map_reader.h"
#include "io/config/part_references.h"
#include "io/config/simulation_parser.h"
#include "io/config/topology_parser.h"

namespace pf::config {

namespace {

const std::vector<std::string_view> kClusterParts{"hardware", "topology"};

// A part named on the command line: errors read "--hardware: ...".
ConfigNode option_reference(const std::string& option, const std::string& key, const std::string& path) {
  return ConfigNode::scalar(key, SourceLocation{option, 0, key}, path, false);
}

}  // namespace

ConfigNode load_cluster_tree(const std::string& hardware_path, const std::string& topology_path,
                             const std::vector<std::string>& overrides) {
  ConfigNode root = ConfigNode::map("", SourceLocation{"<command line>", 0, ""});
  root.set("hardware", option_reference("--hardware", "hardware", hardware_path));
  root.set("topology", option_reference("--topology", "topology", topology_path));
  expand_part_references(root, kClusterParts);
  apply_overrides_reading_parts(root, overrides, kClusterParts);
  return root;
}

ClusterSpec parse_cluster(const ConfigNode& root) {
  MapReader r(root);
  for (const std::string& key : experiment_keys()) r.accept(key);
  r.finish();
  ClusterSpec spec;
  spec.hardware = parse_hardware(r.require("hardware", "a hardware mapping or file path"));
  spec.topology = parse_topology(r.require("topology", "a topology mapping or file path"));
  spec.simulation = parse_simulation(section_or_empty(root, "simulation"));
  if (const ConfigNode* faults = root.find("faults")) spec.faults = parse_faults(*faults, spec.gpu_count(), spec.hardware);
  spec.merged_yaml = merged_yaml(root);
  return spec;
}

ClusterSpec load_cluster(const std::string& hardware_path, const std::string& topology_path,
                         const std::vector<std::string>& overrides) {
  return parse_cluster(load_cluster_tree(hardware_path, topology_path, overrides));
}

ClusterSpec load_cluster_from_experiment(const std::string& experiment_path,
                                         const std::vector<std::string>& overrides) {
  return parse_cluster(load_experiment_tree(experiment_path, overrides));
}

}  // namespace pf::config
