// A small valid experiment, split into part files or inlined, for loader tests.
#pragma once

#include <string>

#include "temp_dir.h"

namespace pf::config::testing {

inline const char* kModelYaml = R"(name: tiny
layers: 4
hidden_size: 256
ffn_hidden_size: 1024
num_attention_heads: 8
num_kv_heads: 8
vocab_size: 1000
)";

inline const char* kHardwareYaml = R"(gpu:
  name: G
  peak_tflops: {bf16: 100}
  memory_gb: 80
  memory_bandwidth_gbps: 2000
node:
  gpus_per_node: 8
  nvlink_bandwidth_gbps: 300
  nvlink_latency_us: 0.7
  nics_per_node: 8
  nic_bandwidth_gbps: 200
  nic_latency_us: 2.0
  pcie_bandwidth_gbps: 32
)";

inline const char* kTopologyYaml = "kind: single_switch\nnodes: 2\n";

// Experiment naming the parts by path, in experiments/ next to parts/.
inline const char* kExperimentYaml = R"(name: tiny-run
model: ../parts/model.yaml
hardware: ../parts/hardware.yaml
topology: ../parts/topology.yaml
parallelism:
  tp: 4
  pp: 2
training:
  global_batch_size: 16
  seq_length: 128
)";

// Writes the part files and an experiment; returns the experiment's path.
inline std::string write_experiment(const TempDir& dir, const std::string& experiment = kExperimentYaml) {
  dir.write("parts/model.yaml", kModelYaml);
  dir.write("parts/hardware.yaml", kHardwareYaml);
  dir.write("parts/topology.yaml", kTopologyYaml);
  return dir.write("experiments/exp.yaml", experiment);
}

// 1-based line of the first line of `text` containing `needle`.
inline int line_of(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  if (at == std::string::npos) return 0;
  int line = 1;
  for (std::size_t i = 0; i < at; ++i) line += text[i] == '\n';
  return line;
}

// Every line of `text` indented by two spaces: a part file inlined under its key.
inline std::string indent(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (const char c : text) {
    if (line_start) out += "  ";
    out += c;
    line_start = c == '\n';
  }
  return out;
}

inline std::string replace_text(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  if (at == std::string::npos) throw std::runtime_error("replace_text: '" + from + "' not found");
  return text.replace(at, from.size(), to);
}

}  // namespace pf::config::testing
