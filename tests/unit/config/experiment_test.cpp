// Experiment assembly: part files, path resolution, cross-part rules, merged YAML.
#include <gtest/gtest.h>

#include "experiment_fixture.h"
#include "io/config/cluster_loader.h"
#include "io/config/experiment_loader.h"

namespace pf::config {
namespace {

using namespace testing;

TEST(ConfigExperimentLoader, LoadsPartsNamedByRelativePath) {
  TempDir dir;
  const models::ExperimentSpec spec = load_experiment(write_experiment(dir));
  EXPECT_EQ(spec.name, "tiny-run");
  EXPECT_EQ(spec.model.name, "tiny");
  EXPECT_EQ(spec.model.layers, 4);
  EXPECT_EQ(spec.hardware.gpu.name, "G");
  EXPECT_EQ(spec.topology.nodes, 2);
  EXPECT_EQ(spec.gpu_count(), 16);
  EXPECT_EQ(spec.parallelism.tp, 4);
  EXPECT_EQ(spec.parallelism.dp, 2);   // derived: 16 / (4*2*1)
  EXPECT_EQ(spec.training.global_batch_size, 16);
  EXPECT_EQ(spec.output.dir, "out/tiny-run");
  EXPECT_TRUE(spec.simai_workload.empty());
}

TEST(ConfigExperimentLoader, PartErrorsNameThePartFileAndMergedKey) {
  TempDir dir;
  const std::string exp = write_experiment(dir);
  dir.write("parts/hardware.yaml", replace_text(kHardwareYaml, "nic_latency_us: 2.0", "nic_latency_us: -2"));
  EXPECT_EQ(config_error([&] { load_experiment(exp); }),
            dir.path("parts/hardware.yaml") + ":12: hardware.node.nic_latency_us: expected a number >= 0, found '-2'");
}

TEST(ConfigExperimentLoader, MissingPartFileNamesTheExperimentLine) {
  TempDir dir;
  const std::string exp = write_experiment(dir, replace_text(kExperimentYaml, "../parts/model.yaml", "model.yaml"));
  const std::string message = config_error([&] { load_experiment(exp); });
  EXPECT_TRUE(message.starts_with(exp + ":2: model: expected an inline mapping or the path of a YAML file, found "
                                        "'model.yaml'")) << message;
}

TEST(ConfigExperimentLoader, InlinePartsEqualNamedParts) {
  TempDir dir;
  const models::ExperimentSpec named = load_experiment(write_experiment(dir));
  const std::string inlined = "name: tiny-run\nmodel:\n" + indent(kModelYaml) + "hardware:\n" + indent(kHardwareYaml) +
                              "topology: {kind: single_switch, nodes: 2}\nparallelism: {tp: 4, pp: 2}\n"
                              "training: {global_batch_size: 16, seq_length: 128}\n";
  const models::ExperimentSpec spec = load_experiment(dir.write("inline.yaml", inlined));
  EXPECT_EQ(spec.model.hidden_size, named.model.hidden_size);
  EXPECT_DOUBLE_EQ(spec.hardware.node.nic_bandwidth_gbps, named.hardware.node.nic_bandwidth_gbps);
  // Same content, different layout: the canonical YAML (and so the report hash) is the same.
  EXPECT_EQ(spec.merged_yaml, named.merged_yaml);
}

TEST(ConfigExperimentLoader, ProductOfParallelSizesMustMatchTheGpuCount) {
  TempDir dir;
  const std::string text = replace_text(kExperimentYaml, "  pp: 2\n", "  pp: 2\n  dp: 4\n");
  const std::string exp = write_experiment(dir, text);
  EXPECT_EQ(config_error([&] { load_experiment(exp); }),
            exp + ":5: parallelism: expected tp*pp*dp*cp to equal 16 GPUs (topology.nodes * hardware.node.gpus_per_node), "
                  "found tp*pp*dp*cp = 4*2*4*1 = 32");
}

TEST(ConfigExperimentLoader, DerivedDpMustBeWhole) {
  TempDir dir;
  const std::string exp = write_experiment(dir, replace_text(kExperimentYaml, "  pp: 2\n", "  pp: 3\n"));
  EXPECT_EQ(config_error([&] { load_experiment(exp); }),
            exp + ":5: parallelism: expected tp*pp*cp to divide 16 GPUs (topology.nodes * hardware.node.gpus_per_node), "
                  "found tp*pp*cp = 12 (dp is omitted and cannot be derived)");
}

TEST(ConfigExperimentLoader, HeadsMustDivideByTp) {
  TempDir dir;
  // 8 heads on tp 16 (one node of 16 GPUs would be needed: use 2 nodes * 8).
  const std::string text = replace_text(replace_text(kExperimentYaml, "  tp: 4\n", "  tp: 16\n"), "  pp: 2\n", "  pp: 1\n");
  const std::string exp = write_experiment(dir, text);
  EXPECT_EQ(config_error([&] { load_experiment(exp); }),
            exp + ":6: parallelism.tp: expected a divisor of model.num_attention_heads (8), found 16");
}

TEST(ConfigExperimentLoader, KvHeadsSplitOrReplicateAcrossTp) {
  TempDir dir;
  const std::string exp = write_experiment(dir);
  dir.write("parts/model.yaml", replace_text(kModelYaml, "num_kv_heads: 8", "num_kv_heads: 2"));
  EXPECT_EQ(load_experiment(exp).model.num_kv_heads, 2);   // 2 KV heads replicated over tp 4
  dir.write("parts/model.yaml", replace_text(replace_text(kModelYaml, "num_kv_heads: 8", "num_kv_heads: 3"),
                                             "num_attention_heads: 8", "num_attention_heads: 12\nhead_dim: 16"));
  EXPECT_EQ(config_error([&] { load_experiment(exp); }),
            exp + ":6: parallelism.tp: expected a divisor or multiple of model.num_kv_heads (3), found 4");
}

TEST(ConfigExperimentLoader, GlobalBatchMustDivideByMicroBatchTimesDp) {
  TempDir dir;
  const std::string text = replace_text(kExperimentYaml, "  global_batch_size: 16\n", "  global_batch_size: 15\n");
  const std::string exp = write_experiment(dir, text);
  EXPECT_EQ(config_error([&] { load_experiment(exp); }),
            exp + ":9: training.global_batch_size: expected a multiple of micro_batch_size*dp (1*2 = 2), found 15");
}

// torchtitan's op-level checkpointing is defined for dense blocks: a MoE model
// with recompute selective_op is an error naming the key and the choices.
TEST(ConfigExperimentLoader, OpSelectiveRecomputeNeedsDenseLayers) {
  TempDir dir;
  const std::string text = replace_text(kExperimentYaml, "  seq_length: 128\n", "  seq_length: 128\n  recompute: selective_op\n");
  const std::string exp = write_experiment(dir, text);
  EXPECT_EQ(load_experiment(exp).training.recompute, models::Recompute::selective_op);
  dir.write("parts/model.yaml", std::string(kModelYaml) + "moe: {num_experts: 8, top_k: 2}\n");
  EXPECT_EQ(config_error([&] { load_experiment(exp); }),
            exp + ":11: training.recompute: expected none, selective or full with model.moe (selective_op covers dense "
                  "layers), found selective_op");
}

// training.recompute_modules: Megatron-Core's module names, with selective
// recomputation only; mla_up_proj needs latent attention.
TEST(ConfigExperimentLoader, RecomputeModulesNameMegatronsModules) {
  TempDir dir;
  using R = models::RecomputeModules;
  std::string text = replace_text(kExperimentYaml, "  seq_length: 128\n",
                                  "  seq_length: 128\n  recompute: selective\n  recompute_modules: [layernorm, moe_act]\n");
  std::string exp = write_experiment(dir, text);
  const models::TrainingSpec t = load_experiment(exp).training;
  EXPECT_EQ(t.recompute_modules.modules, R::layernorm | R::moe_act);
  EXPECT_FALSE(t.recomputes(R::core_attn));
  EXPECT_TRUE(t.recomputes(R::layernorm));
  // Without the key, selective is Megatron's default: the core attention.
  text = replace_text(kExperimentYaml, "  seq_length: 128\n", "  seq_length: 128\n  recompute: selective\n");
  EXPECT_EQ(load_experiment(write_experiment(dir, text)).training.recompute_modules.modules, R::core_attn);

  text = replace_text(kExperimentYaml, "  seq_length: 128\n", "  seq_length: 128\n  recompute_modules: [layernorm]\n");
  exp = write_experiment(dir, text);
  EXPECT_EQ(config_error([&] { load_experiment(exp); }),
            exp + ":11: training.recompute_modules: expected recompute: selective beside recompute_modules, found "
                  "recompute_modules without it");
  text = replace_text(kExperimentYaml, "  seq_length: 128\n",
                      "  seq_length: 128\n  recompute: selective\n  recompute_modules: [layernorm, everything]\n");
  exp = write_experiment(dir, text);
  EXPECT_NE(config_error([&] { load_experiment(exp); }).find("training.recompute_modules"), std::string::npos);
  text = replace_text(kExperimentYaml, "  seq_length: 128\n",
                      "  seq_length: 128\n  recompute: selective\n  recompute_modules: [layernorm, layernorm]\n");
  exp = write_experiment(dir, text);
  EXPECT_EQ(config_error([&] { load_experiment(exp); }),
            exp + ":12: training.recompute_modules[1]: expected each module once, found 'layernorm' again");
  text = replace_text(kExperimentYaml, "  seq_length: 128\n",
                      "  seq_length: 128\n  recompute: selective\n  recompute_modules: [mla_up_proj]\n");
  exp = write_experiment(dir, text);
  EXPECT_NE(config_error([&] { load_experiment(exp); })
                .find("expected mla_up_proj only with model.mla (it re-runs latent attention's up-projections)"),
            std::string::npos);
}

// training.cpu_offload_layers: Megatron-Core's --cpu-offloading-num-layers,
// with its limits (TransformerConfig): fewer layers than the model, no
// pipeline parallelism, no recomputation; and no CUDA graphs.
TEST(ConfigExperimentLoader, CpuOffloadLayersTakeMegatronsLimits) {
  TempDir dir;
  auto with = [&](const std::string& parallel, const std::string& training) {
    std::string text = replace_text(kExperimentYaml, "  pp: 2\n", parallel);
    return write_experiment(dir, replace_text(text, "  seq_length: 128\n", "  seq_length: 128\n" + training));
  };
  std::string exp = with("  pp: 1\n", "  cpu_offload_layers: 3\n");
  EXPECT_EQ(load_experiment(exp).training.cpu_offload_layers, 3);
  EXPECT_EQ(load_experiment(write_experiment(dir)).training.cpu_offload_layers, 0);
  exp = with("  pp: 1\n", "  cpu_offload_layers: 4\n");
  EXPECT_EQ(config_error([&] { load_experiment(exp); }),
            exp + ":11: training.cpu_offload_layers: expected fewer layers than model.layers (4), found 4");
  exp = with("  pp: 2\n", "  cpu_offload_layers: 1\n");
  EXPECT_NE(config_error([&] { load_experiment(exp); })
                .find(":11: training.cpu_offload_layers: expected 0 with parallelism.pp > 1"),
            std::string::npos);
  exp = with("  pp: 1\n", "  recompute: full\n  cpu_offload_layers: 1\n");
  EXPECT_NE(config_error([&] { load_experiment(exp); }).find("expected 0 with training.recompute"), std::string::npos);
  exp = with("  pp: 1\n", "  launch: cuda_graph\n  cpu_offload_layers: 1\n");
  EXPECT_NE(config_error([&] { load_experiment(exp); }).find("expected 0 with CUDA graphs"), std::string::npos);
  exp = with("  pp: 1\n", "  cpu_offload_layers: -1\n");
  EXPECT_NE(config_error([&] { load_experiment(exp); }).find("training.cpu_offload_layers"), std::string::npos);
}

// training.offload_modules: Megatron-Core's --offload-modules, the routed
// experts' two modules, each once, on a model with experts, not beside
// layer offloading.
TEST(ConfigExperimentLoader, OffloadModulesNameTheExpertsInputs) {
  TempDir dir;
  const std::string moe_model = "moe:\n  num_experts: 4\n  top_k: 2\n  expert_ffn_hidden_size: 256\n";
  auto with = [&](const std::string& training, bool moe) {
    std::string text = replace_text(kExperimentYaml, "  seq_length: 128\n", "  seq_length: 128\n" + training);
    text = replace_text(text, "  pp: 2\n", "  pp: 1\n");
    dir.write("parts/model.yaml", moe ? std::string(kModelYaml) + moe_model : std::string(kModelYaml));
    dir.write("parts/hardware.yaml", kHardwareYaml);
    dir.write("parts/topology.yaml", kTopologyYaml);
    return dir.write("experiments/exp.yaml", text);
  };
  std::string exp = with("  offload_modules: [moe_act, expert_fc1]\n", true);
  const models::TrainingSpec t = load_experiment(exp).training;
  EXPECT_TRUE(t.offload_modules.has(models::OffloadModules::expert_fc1));
  EXPECT_TRUE(t.offload_modules.has(models::OffloadModules::moe_act));
  exp = with("  offload_modules: [expert_fc1, expert_fc1]\n", true);
  EXPECT_NE(config_error([&] { load_experiment(exp); }).find("expected each module once, found 'expert_fc1' again"),
            std::string::npos);
  exp = with("  offload_modules: [core_attn]\n", true);
  EXPECT_NE(config_error([&] { load_experiment(exp); }).find("training.offload_modules[0]"), std::string::npos);
  exp = with("  offload_modules: []\n", true);
  EXPECT_NE(config_error([&] { load_experiment(exp); }).find("a non-empty sequence of modules"), std::string::npos);
  exp = with("  offload_modules: [expert_fc1]\n", false);
  EXPECT_NE(config_error([&] { load_experiment(exp); }).find("only with model.moe"), std::string::npos);
  exp = with("  offload_modules: [expert_fc1]\n  cpu_offload_layers: 1\n", true);
  EXPECT_NE(config_error([&] { load_experiment(exp); }).find("cannot be enabled with cpu_offloading"), std::string::npos);
}

TEST(ConfigExperimentLoader, LayersPerStageMustCoverTheModel) {
  TempDir dir;
  std::string text = replace_text(kExperimentYaml, "  pp: 2\n", "  pp: 2\n  layers_per_stage: [1, 2]\n");
  std::string exp = write_experiment(dir, text);
  EXPECT_EQ(config_error([&] { load_experiment(exp); }),
            exp + ":8: parallelism.layers_per_stage: expected entries summing to model.layers (4), found a sum of 3");
  text = replace_text(kExperimentYaml, "  pp: 2\n", "  pp: 2\n  layers_per_stage: [4]\n");
  exp = write_experiment(dir, text);
  EXPECT_EQ(config_error([&] { load_experiment(exp); }),
            exp + ":8: parallelism.layers_per_stage: expected pp*virtual_stages = 2 entries, found 1 entries");
  text = replace_text(kExperimentYaml, "  pp: 2\n", "  pp: 2\n  layers_per_stage: [3, 1]\n");
  EXPECT_EQ(load_experiment(write_experiment(dir, text)).parallelism.layers_per_stage, (std::vector<int>{3, 1}));
}

TEST(ConfigExperimentLoader, VirtualStagesNeedTheInterleavedSchedule) {
  TempDir dir;
  std::string text = replace_text(kExperimentYaml, "  pp: 2\n", "  pp: 2\n  virtual_stages: 2\n");
  std::string exp = write_experiment(dir, text);
  EXPECT_EQ(config_error([&] { load_experiment(exp); }),
            exp + ":8: parallelism.virtual_stages: expected 1 unless pipeline_schedule is interleaved, found 2");
  text = replace_text(kExperimentYaml, "  pp: 2\n", "  pp: 2\n  virtual_stages: 2\n  pipeline_schedule: interleaved\n");
  const models::ExperimentSpec spec = load_experiment(write_experiment(dir, text));
  EXPECT_EQ(spec.parallelism.pipeline_schedule, models::PipelineSchedule::interleaved);
  EXPECT_EQ(spec.parallelism.virtual_stages, 2);
  // 4 layers cannot fill pp*virtual_stages = 2*4 = 8 chunks.
  text = replace_text(kExperimentYaml, "  pp: 2\n", "  pp: 2\n  virtual_stages: 4\n  pipeline_schedule: interleaved\n");
  exp = write_experiment(dir, text);
  EXPECT_EQ(config_error([&] { load_experiment(exp); }),
            exp + ":7: parallelism.pp: expected pp*virtual_stages <= model.layers (4), found 8");
}

TEST(ConfigExperimentLoader, SlidingWindowTakesItsLayersAndFlashKernels) {
  TempDir dir;
  std::string exp = write_experiment(dir, kExperimentYaml);
  dir.write("parts/model.yaml", std::string(kModelYaml) + "sliding_window: {size: 128, full_every: 2}\n");
  const models::ExperimentSpec spec = load_experiment(exp);
  ASSERT_TRUE(spec.model.sliding_window.has_value());
  EXPECT_EQ(spec.model.sliding_window->size, 128);
  EXPECT_EQ(spec.model.sliding_window->full_every, 2);
  // full_every counts layers: beyond the model's 4 it names none.
  dir.write("parts/model.yaml", std::string(kModelYaml) + "sliding_window: {size: 128, full_every: 5}\n");
  EXPECT_NE(config_error([&] { load_experiment(exp); }).find("model.sliding_window.full_every: expected an integer in [0, 4]"),
            std::string::npos);
  dir.write("parts/model.yaml", std::string(kModelYaml) + "sliding_window: {full_every: 2}\n");
  EXPECT_NE(config_error([&] { load_experiment(exp); }).find("missing required key 'size'"), std::string::npos);
  exp = write_experiment(dir, replace_text(kExperimentYaml, "  pp: 2\n", "  pp: 2\n  cp: 2\n"));
  dir.write("parts/model.yaml", std::string(kModelYaml) + "sliding_window: {size: 128}\n");
  EXPECT_NE(config_error([&] { load_experiment(exp); })
                .find("parallelism.cp: expected 1 with model.sliding_window (ring attention over a window), found 2"),
            std::string::npos);
}

TEST(ConfigExperimentLoader, RecomputeNumLayersNeedsFullRecomputation) {
  TempDir dir;
  std::string exp = write_experiment(
      dir, replace_text(kExperimentYaml, "  seq_length: 128\n", "  seq_length: 128\n  recompute_num_layers: 1\n"));
  EXPECT_EQ(config_error([&] { load_experiment(exp); }),
            exp + ":11: training.recompute_num_layers: expected 0 unless recompute is full, found 1");
  exp = write_experiment(dir, replace_text(kExperimentYaml, "  seq_length: 128\n",
                                           "  seq_length: 128\n  recompute: full\n  recompute_num_layers: 1\n"));
  EXPECT_EQ(load_experiment(exp).training.recompute_num_layers, 1);
  EXPECT_EQ(load_experiment(exp).training.layer_recompute(1), models::Recompute::none);
  EXPECT_EQ(load_experiment(exp).training.layer_recompute(0), models::Recompute::full);
}

TEST(ConfigExperimentLoader, RecomputeMethodNeedsFullRecomputation) {
  TempDir dir;
  std::string exp = write_experiment(
      dir, replace_text(kExperimentYaml, "  seq_length: 128\n", "  seq_length: 128\n  recompute_method: uniform\n"));
  EXPECT_EQ(config_error([&] { load_experiment(exp); }),
            exp + ":11: training.recompute_method: expected recompute: full beside recompute_method, found "
                  "recompute_method without it");
  exp = write_experiment(dir, replace_text(kExperimentYaml, "  seq_length: 128\n",
                                           "  seq_length: 128\n  recompute: full\n  recompute_method: ring\n"));
  EXPECT_NE(config_error([&] { load_experiment(exp); }).find("training.recompute_method"), std::string::npos);
  exp = write_experiment(dir, replace_text(kExperimentYaml, "  seq_length: 128\n",
                                           "  seq_length: 128\n  recompute: full\n  recompute_method: uniform\n"
                                           "  recompute_num_layers: 3\n"));
  const models::TrainingSpec t = load_experiment(exp).training;
  EXPECT_EQ(t.recompute_method, models::RecomputeMethod::uniform);
  EXPECT_EQ(t.recompute_group(), 3);
  EXPECT_EQ(t.layer_recompute(5), models::Recompute::full);  // uniform re-runs every layer
}

TEST(ConfigExperimentLoader, ExpertParallelismNeedsExperts) {
  TempDir dir;
  std::string text = replace_text(kExperimentYaml, "  pp: 2\n", "  pp: 1\n  ep: 2\n");
  std::string exp = write_experiment(dir, text);
  EXPECT_EQ(config_error([&] { load_experiment(exp); }),
            exp + ":8: parallelism.ep: expected 1 for a model without moe, found 2");
  dir.write("parts/model.yaml", std::string(kModelYaml) + "moe: {num_experts: 3, top_k: 2}\n");
  EXPECT_EQ(config_error([&] { load_experiment(exp); }),
            exp + ":8: parallelism.ep: expected a divisor of model.moe.num_experts (3), found 2");
  dir.write("parts/model.yaml", std::string(kModelYaml) + "moe: {num_experts: 8, top_k: 2}\n");
  EXPECT_EQ(load_experiment(exp).parallelism.ep, 2);
  // dp = 4 here; ep 8 does not divide it.
  exp = write_experiment(dir, replace_text(kExperimentYaml, "  pp: 2\n", "  pp: 1\n  ep: 8\n"));
  dir.write("parts/model.yaml", std::string(kModelYaml) + "moe: {num_experts: 8, top_k: 2}\n");
  EXPECT_EQ(config_error([&] { load_experiment(exp); }),
            exp + ":8: parallelism.ep: expected a divisor of dp (4): experts are carved out of data parallelism, found 8");
}

TEST(ConfigExperimentLoader, TrainingDtypeNeedsAPeak) {
  TempDir dir;
  const std::string exp =
      write_experiment(dir, replace_text(kExperimentYaml, "  seq_length: 128\n", "  seq_length: 128\n  dtype: fp8\n"));
  EXPECT_EQ(config_error([&] { load_experiment(exp); }),
            dir.path("parts/hardware.yaml") + ":3: hardware.gpu.peak_tflops: expected a peak for training.dtype fp8, "
                                              "found none");
}

TEST(ConfigExperimentLoader, UnknownTopLevelKeyGetsAHint) {
  TempDir dir;
  const std::string exp = write_experiment(dir, std::string(kExperimentYaml) + "paralelism: {tp: 2}\n");
  EXPECT_EQ(config_error([&] { load_experiment(exp); }),
            exp + ":11: paralelism: unknown key 'paralelism', did you mean 'parallelism'?");
}

TEST(ConfigExperimentLoader, SimaiWorkloadReplacesTheModel) {
  TempDir dir;
  dir.write("experiments/workloads/w.txt", "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 4\n");
  const std::string text = replace_text(kExperimentYaml, "model: ../parts/model.yaml\n", "workload: {simai: workloads/w.txt}\n");
  const models::ExperimentSpec spec = load_experiment(write_experiment(dir, text));
  EXPECT_EQ(spec.simai_workload, dir.path("experiments/workloads/w.txt"));
  EXPECT_EQ(spec.model.layers, 0);
  const std::string none = replace_text(kExperimentYaml, "model: ../parts/model.yaml\n", "");
  const std::string exp = write_experiment(dir, none);
  EXPECT_EQ(config_error([&] { load_experiment(exp); }),
            exp + ":1: missing required key 'model' (a model mapping or file path, or a workload: {simai: FILE})");
}

TEST(ConfigExperimentLoader, MergedYamlIsDeterministicAndTracksValues) {
  TempDir dir;
  const std::string exp = write_experiment(dir);
  const models::ExperimentSpec a = load_experiment(exp);
  const models::ExperimentSpec b = load_experiment(exp);
  EXPECT_EQ(a.merged_yaml, b.merged_yaml);
  EXPECT_NE(a.merged_yaml.find("nic_bandwidth_gbps: 200"), std::string::npos) << a.merged_yaml;
  EXPECT_NE(a.merged_yaml.find("hidden_size: 256"), std::string::npos);   // parts are inlined
  const models::ExperimentSpec c = load_experiment(exp, {"hardware.node.nic_bandwidth_gbps=400"});
  EXPECT_NE(c.merged_yaml, a.merged_yaml);
  EXPECT_NE(c.merged_yaml.find("nic_bandwidth_gbps: 400"), std::string::npos);
  // Setting a key to the value it already has changes nothing.
  EXPECT_EQ(load_experiment(exp, {"parallelism.tp=4"}).merged_yaml, a.merged_yaml);
}

TEST(ConfigClusterLoader, ReadsHardwareTopologyAndSimulation) {
  TempDir dir;
  write_experiment(dir);
  const ClusterSpec cluster = load_cluster(dir.path("parts/hardware.yaml"), dir.path("parts/topology.yaml"),
                                           {"simulation.network=analytical", "topology.nodes=4"});
  EXPECT_EQ(cluster.gpu_count(), 32);
  EXPECT_EQ(cluster.simulation.network, models::NetworkMode::analytical);
  EXPECT_NE(cluster.merged_yaml.find("network: analytical"), std::string::npos);
  EXPECT_EQ(config_error([&] { load_cluster(dir.path("parts/nope.yaml"), dir.path("parts/topology.yaml")); }),
            "--hardware: expected an inline mapping or the path of a YAML file, found '" + dir.path("parts/nope.yaml") +
                "' (no such file: " + dir.path("parts/nope.yaml") + ")");
}

TEST(ConfigClusterLoader, TakesTheClusterFromAnExperiment) {
  TempDir dir;
  const ClusterSpec cluster = load_cluster_from_experiment(write_experiment(dir), {"topology.nodes=8"});
  EXPECT_EQ(cluster.gpu_count(), 64);   // parallelism is not re-checked for a collective run
  EXPECT_DOUBLE_EQ(cluster.hardware.node.nvlink_bandwidth_gbps, 300);
}

}  // namespace
}  // namespace pf::config
