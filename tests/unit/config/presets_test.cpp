// The shipped presets: all load, they combine into valid experiments, and their
// numbers agree with published totals (parameter counts) and datasheet ratios.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include "io/config/cluster_loader.h"
#include "io/config/experiment_loader.h"
#include "io/config/hardware_parser.h"
#include "io/config/model_parser.h"
#include "io/config/topology_parser.h"
#include "io/config/yaml_reader.h"
#include "models/compute/roofline.h"
#include "temp_dir.h"

namespace pf::config {
namespace {

namespace fs = std::filesystem;

fs::path configs() { return fs::path(PF_SOURCE_ROOT) / "configs"; }

std::vector<fs::path> presets(const std::string& folder) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(configs() / folder)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

models::ModelSpec model(const std::string& name) {
  return parse_model(read_yaml_file((configs() / "models" / (name + ".yaml")).string(), "model"));
}
models::HardwareSpec hardware(const std::string& name) {
  return parse_hardware(read_yaml_file((configs() / "hardware" / (name + ".yaml")).string(), "hardware"));
}

TEST(ConfigPresets, TheSpecifiedSetIsShipped) {
  for (const char* name : {"a100-sxm-80gb", "h100-sxm-80gb", "h200-sxm-141gb", "h20-96gb", "b200-192gb", "gb200-nvl72",
                           "gh200-96gb"}) {
    EXPECT_TRUE(fs::exists(configs() / "hardware" / (std::string(name) + ".yaml"))) << name;
  }
  for (const char* name : {"single-switch", "rail-optimized", "fat-tree-3tier"}) {
    EXPECT_TRUE(fs::exists(configs() / "topology" / (std::string(name) + ".yaml"))) << name;
  }
  for (const char* name : {"gpt3-13b", "gpt3-175b", "llama2-7b", "llama2-70b", "llama3-8b", "llama3-70b", "llama3-405b",
                           "mixtral-8x7b", "deepseek-v3"}) {
    EXPECT_TRUE(fs::exists(configs() / "models" / (std::string(name) + ".yaml"))) << name;
  }
}

TEST(ConfigPresets, EveryPresetParses) {
  for (const fs::path& file : presets("hardware")) EXPECT_NO_THROW(parse_hardware(read_yaml_file(file, "hardware"))) << file;
  for (const fs::path& file : presets("topology")) EXPECT_NO_THROW(parse_topology(read_yaml_file(file, "topology"))) << file;
  for (const fs::path& file : presets("models")) EXPECT_NO_THROW(parse_model(read_yaml_file(file, "model"))) << file;
}

// Every number in a preset carries its source (or reasoning) in a comment on its line.
TEST(ConfigPresets, EveryNumberHasACommentOnItsLine) {
  const std::regex numeric_key(R"(^\s*[A-Za-z_0-9]+:\s*[-+0-9.]+\s*(#.*)?$)");
  for (const char* folder : {"hardware", "topology", "models"}) {
    for (const fs::path& file : presets(folder)) {
      std::ifstream in(file);
      std::string line;
      int number = 0;
      while (std::getline(in, line)) {
        ++number;
        if (std::regex_match(line, numeric_key)) {
          EXPECT_NE(line.find('#'), std::string::npos) << file.string() << ":" << number << ": " << line;
        }
      }
    }
  }
}

// Parameters from the architecture numbers alone (weights of embeddings,
// attention, MLP/experts; norms and biases are under 0.1% and left out), to
// check each preset against the total its authors published.
struct ParameterCount {
  double total = 0;
  double active = 0;   // per token, for MoE
};

ParameterCount count_parameters(const models::ModelSpec& m) {
  const double h = static_cast<double>(m.hidden_size);
  const double hd = static_cast<double>(m.effective_head_dim());
  double attention = 0;
  if (m.mla) {
    const models::MlaSpec& a = *m.mla;
    const double heads = m.num_attention_heads;
    const double qk = static_cast<double>(a.qk_nope_head_dim + a.qk_rope_head_dim);
    attention = h * a.q_lora_rank + a.q_lora_rank * heads * qk +                 // query down/up projections
                h * static_cast<double>(a.kv_lora_rank + a.qk_rope_head_dim) +   // KV latent + shared rotary key
                a.kv_lora_rank * heads * static_cast<double>(a.qk_nope_head_dim + a.v_head_dim) +
                heads * a.v_head_dim * h;                                         // output projection
  } else {
    attention = h * hd * (m.num_attention_heads + 2.0 * m.num_kv_heads) + m.num_attention_heads * hd * h;
  }
  const bool gated = models::is_gated(m.activation);
  const double matrices = gated ? 3 : 2;
  const double dense_mlp = matrices * h * static_cast<double>(m.ffn_hidden_size);
  ParameterCount count;
  const double embeddings = static_cast<double>(m.vocab_size) * h * (m.tied_embeddings ? 1 : 2);
  count.total = count.active = embeddings + m.layers * attention;
  if (!m.moe) {
    count.total += m.layers * dense_mlp;
    count.active = count.total;
    return count;
  }
  const models::MoeSpec& e = *m.moe;
  const double expert = matrices * h * static_cast<double>(e.expert_ffn_hidden_size);
  const int moe_layers = m.layers - e.first_dense_layers;
  count.total += e.first_dense_layers * dense_mlp + moe_layers * ((e.num_experts + e.shared_experts) * expert + h * e.num_experts);
  count.active += e.first_dense_layers * dense_mlp + moe_layers * ((e.top_k + e.shared_experts) * expert + h * e.num_experts);
  return count;
}

TEST(ConfigPresets, ParameterCountsMatchPublishedTotals) {
  struct Published {
    const char* name;
    double total_billions;
    double active_billions;
  };
  // GPT-3 paper Table 2.1; Llama 2 paper; Llama 3 paper (8.0B, 70.6B, 405B as the
  // HF model cards count them); Mixtral paper (46.7B total, 12.9B active); DeepSeek-V3
  // report (671B total, 37B activated; the 14B multi-token-prediction module excluded);
  // Qwen3-30B-A3B model card (30.5B total, "3.3B activated": the card cuts to one decimal,
  // and 3.3 is 3.30-3.39B; the architecture counts 3.353B with both embedding matrices, so
  // the check takes 3.35, the middle of what the card allows within the 1.5 % tolerance).
  const Published published[] = {{"gpt3-13b", 13.0, 13.0},        {"gpt3-175b", 175.0, 175.0},
                                 {"llama2-7b", 6.74, 6.74},       {"llama2-70b", 68.98, 68.98},
                                 {"llama3-8b", 8.03, 8.03},       {"llama3-70b", 70.55, 70.55},
                                 {"llama3-405b", 405.85, 405.85}, {"mixtral-8x7b", 46.7, 12.9},
                                 {"deepseek-v3", 671.0, 37.0},    {"qwen3-30b-a3b", 30.5, 3.35}};
  for (const Published& p : published) {
    const ParameterCount count = count_parameters(model(p.name));
    EXPECT_NEAR(count.total / 1e9, p.total_billions, 0.015 * p.total_billions) << p.name;
    EXPECT_NEAR(count.active / 1e9, p.active_billions, 0.015 * p.active_billions) << p.name;
  }
}

TEST(ConfigPresets, TensorCorePeaksFollowDatasheetRatios) {
  // On every NVIDIA tensor-core GPU here FP16 = BF16, FP8 = 2 x BF16 and TF32 = BF16 / 2
  // (B200's published TF32 is 1.1 of 2.25 PFLOP/s: within 3%).
  for (const fs::path& file : presets("hardware")) {
    const models::HardwareSpec hw = parse_hardware(read_yaml_file(file, "hardware"));
    const auto& peak = hw.gpu.peak_tflops;
    const double bf16 = peak.at(models::Dtype::bf16);
    EXPECT_DOUBLE_EQ(peak.at(models::Dtype::fp16), bf16) << file;
    if (peak.count(models::Dtype::fp8)) {
      EXPECT_NEAR(peak.at(models::Dtype::fp8), 2 * bf16, 0.001 * bf16) << file;
    }
    EXPECT_NEAR(peak.at(models::Dtype::tf32), bf16 / 2, 0.03 * bf16 / 2) << file;
    EXPECT_LT(peak.at(models::Dtype::fp32), peak.at(models::Dtype::tf32)) << file;
    // Ampere has no FP8; Hopper and Blackwell do.
    EXPECT_EQ(peak.count(models::Dtype::fp8) == 0, hw.gpu.name.starts_with("A100")) << file;
  }
  EXPECT_DOUBLE_EQ(hardware("a100-sxm-80gb").gpu.peak_tflops.at(models::Dtype::bf16), 312);
  EXPECT_DOUBLE_EQ(hardware("h100-sxm-80gb").gpu.memory_bandwidth_gbps, 3350);
  EXPECT_DOUBLE_EQ(hardware("h200-sxm-141gb").gpu.memory_gb, 141);
}

// Each model preset on one 8-GPU H100 node with tp 8: the presets fit together.
// Triton FlashAttention (training.attention: flash_triton): every preset
// carries the rate fitted on llm-foundry's measured sequence sweeps
// (configs/calibration/{a100-sxm,h100-sxm}/mpt_sweep.csv, checked end to end by
// the ctest accuracy_mpt_triton_sweep): 0.39 on A100, 0.22 on Hopper and (no
// Blackwell figure) Blackwell. Neither is the ratio Dao's kernel benchmark
// gives on A100 (Dao-AILab/flash-attention, assets/flash2_a100_fwd_bwd_benchmark.png:
// Triton 68-80 against FlashAttention-2's 155-189 TFLOP/s, 0.43): the Triton
// kernel MPT ran is faster than that benchmark's, relative to FlashAttention-2,
// on both GPUs (0.56 and 0.67), which the test pins so the two are not confused.
TEST(ConfigPresets, TritonFlashAttentionFollowsTheMeasuredSweeps) {
  EXPECT_DOUBLE_EQ(hardware("a100-sxm-80gb").gpu.efficiency.attention_flash_triton, 0.39);
  for (const char* name : {"h100-sxm-80gb", "h200-sxm-141gb", "gh200-96gb", "h20-96gb", "b200-192gb", "gb200-nvl72"}) {
    EXPECT_DOUBLE_EQ(hardware(name).gpu.efficiency.attention_flash_triton, 0.22) << name;
  }
  const double dao_a100 = 80.0 / 189;  // Triton / FlashAttention-2 at 16k keys
  for (const char* name : {"a100-sxm-80gb", "h100-sxm-80gb"}) {
    const auto& e = hardware(name).gpu.efficiency;
    EXPECT_GT(e.attention_flash_triton / e.attention_flash2, 1.25 * dao_a100) << name;
  }
}

TEST(ConfigPresets, EveryModelFormsAValidExperiment) {
  testing::TempDir dir;
  for (const fs::path& file : presets("models")) {
    const std::string experiment = "model: " + file.string() + "\nhardware: " +
                                   (configs() / "hardware/h100-sxm-80gb.yaml").string() + "\ntopology: " +
                                   (configs() / "topology/single-switch.yaml").string() +
                                   "\nparallelism: {tp: 8}\ntraining: {global_batch_size: 64, seq_length: 4096}\n";
    const std::string path = dir.write("e.yaml", experiment);
    EXPECT_NO_THROW(load_experiment(path, {"topology.nodes=1"})) << file;
  }
}

// io/config/README.md (Presets): Llama 3 405B on 16 stages (126 layers spread unevenly) over the
// Llama 3 cluster, and GPT-3 175B on Selene, must be expressible.
TEST(ConfigPresets, SpecClustersAreExpressible) {
  testing::TempDir dir;
  const std::string llama = dir.write(
      "llama.yaml", "model: " + (configs() / "models/llama3-405b.yaml").string() + "\nhardware: " +
                        (configs() / "hardware/h100-sxm-80gb.yaml").string() + "\ntopology: " +
                        (configs() / "topology/llama3-24k.yaml").string() +
                        "\nparallelism: {tp: 8, pp: 16, cp: 1}\ntraining: {global_batch_size: 2304, seq_length: 8192}\n");
  const models::ExperimentSpec l = load_experiment(llama, {"topology.nodes=2048"});
  EXPECT_EQ(l.gpu_count(), 16384);
  EXPECT_EQ(l.parallelism.dp, 128);
  EXPECT_EQ(l.topology.pod_nodes * l.hardware.node.gpus_per_node, 3072);   // GPUs per pod
  EXPECT_DOUBLE_EQ(l.topology.pod_oversubscription, 7.0);
  EXPECT_EQ(l.topology.nodes_per_leaf * l.hardware.node.gpus_per_node, 16);   // GPUs per ToR

  const ClusterSpec selene = load_cluster((configs() / "hardware/a100-sxm-80gb.yaml").string(),
                                          (configs() / "topology/selene.yaml").string());
  EXPECT_EQ(selene.gpu_count(), 4480);
  EXPECT_EQ(selene.hardware.node.nics_per_node, 8);
  EXPECT_DOUBLE_EQ(selene.hardware.node.nic_bandwidth_gbps, 200);
  EXPECT_GT(selene.topology.pod_nodes, 0);   // three tiers: leaf, spine, core
  EXPECT_LT(selene.topology.pod_nodes, selene.topology.nodes);
}

}  // namespace
}  // namespace pf::config
