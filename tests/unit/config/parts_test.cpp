// Each part's parser: the keys it takes, its ranges, and checks within the part.
#include <gtest/gtest.h>

#include "io/config/hardware_parser.h"
#include "io/config/model_parser.h"
#include "io/config/output_parser.h"
#include "io/config/simulation_parser.h"
#include "io/config/topology_parser.h"
#include "io/config/training_parser.h"
#include "io/config/yaml_reader.h"
#include "temp_dir.h"

namespace pf::config {
namespace {

using testing::config_error;
using testing::TempDir;

const char* kModel = R"(name: m
layers: 4
hidden_size: 256
ffn_hidden_size: 1024
num_attention_heads: 8
vocab_size: 1000
)";

const char* kHardware = R"(gpu:
  name: G
  peak_tflops: {bf16: 100, fp8: 200}
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

models::ModelSpec model(const std::string& text) { return parse_model(read_yaml_text(text, "m.yaml", "model")); }
models::HardwareSpec hardware(const std::string& text) {
  return parse_hardware(read_yaml_text(text, "h.yaml", "hardware"));
}
models::TopologySpec topology(const std::string& text) {
  return parse_topology(read_yaml_text(text, "t.yaml", "topology"));
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(ConfigModelParser, ReadsKeysAndDefaults) {
  const models::ModelSpec m = model(std::string(kModel) + "num_kv_heads: 2\nactivation: swiglu\nnorm: rmsnorm\n");
  EXPECT_EQ(m.layers, 4);
  EXPECT_EQ(m.hidden_size, 256);
  EXPECT_EQ(m.num_kv_heads, 2);
  EXPECT_EQ(m.activation, models::Activation::swiglu);
  EXPECT_EQ(m.norm, models::Norm::rmsnorm);
  EXPECT_FALSE(m.tied_embeddings);
  EXPECT_FALSE(m.moe.has_value());
  EXPECT_EQ(m.effective_head_dim(), 32);
  // num_kv_heads defaults to the head count (multi-head attention).
  EXPECT_EQ(model(kModel).num_kv_heads, 8);
}

TEST(ConfigModelParser, ReadsEveryActivation) {
  for (auto [name, want] : {std::pair{"gelu", models::Activation::gelu}, {"swiglu", models::Activation::swiglu},
                            {"geglu", models::Activation::geglu}, {"relu", models::Activation::relu},
                            {"squared_relu", models::Activation::squared_relu},
                            {"quick_geglu", models::Activation::quick_geglu}}) {
    EXPECT_EQ(model(std::string(kModel) + "activation: " + name + "\n").activation, want) << name;
  }
}

// activation_clamp: a number >= 0 (0, the default, is no clamp), only on a gated activation.
TEST(ConfigModelParser, ReadsTheActivationClampOfAGatedActivation) {
  EXPECT_EQ(model(kModel).activation_clamp, 0);
  EXPECT_EQ(model(std::string(kModel) + "activation: quick_geglu\nactivation_clamp: 7.0\n").activation_clamp, 7.0);
  EXPECT_EQ(config_error([] { model(std::string(kModel) + "activation: swiglu\nactivation_clamp: -1\n"); }),
            "m.yaml:8: model.activation_clamp: expected a number >= 0, found '-1'");
  EXPECT_EQ(config_error([] { model(std::string(kModel) + "activation: gelu\nactivation_clamp: 7\n"); }),
            "m.yaml:8: model.activation_clamp: expected 0 or absent with a non-gated activation (the clamp acts on a "
            "gated activation's two halves: swiglu, geglu or quick_geglu), found '7'");
}

TEST(ConfigModelParser, RejectsImpossibleShapes) {
  EXPECT_EQ(config_error([] { model(std::string(kModel) + "num_kv_heads: 3\n"); }),
            "m.yaml:7: model.num_kv_heads: expected a divisor of num_attention_heads (8), found 3");
  EXPECT_EQ(config_error([] { model(std::string(kModel) + "num_kv_heads: 16\n"); }),
            "m.yaml:7: model.num_kv_heads: expected an integer in [1, 8], found '16'");
  EXPECT_EQ(config_error([] { model(replace(kModel, "num_attention_heads: 8", "num_attention_heads: 6")); }),
            "m.yaml:5: model.num_attention_heads: expected a divisor of hidden_size (256), or an explicit head_dim, "
            "found 6");
  // An explicit head_dim lifts the divisibility requirement.
  EXPECT_EQ(model(replace(kModel, "num_attention_heads: 8", "num_attention_heads: 6\nhead_dim: 64")).effective_head_dim(),
            64);
  EXPECT_EQ(config_error([] { model(replace(kModel, "layers: 4", "layers: four")); }),
            "m.yaml:2: model.layers: expected an integer >= 1, found 'four'");
}

TEST(ConfigModelParser, UnknownKeyGetsAHint) {
  EXPECT_EQ(config_error([] { model(std::string(kModel) + "num_kv_head: 2\n"); }),
            "m.yaml:7: model.num_kv_head: unknown key 'num_kv_head', did you mean 'num_kv_heads'?");
}

TEST(ConfigModelParser, MoeAndMla) {
  const models::ModelSpec m = model(std::string(kModel) +
                                    "moe: {num_experts: 16, top_k: 4, expert_ffn_hidden_size: 128, shared_experts: 1,\n"
                                    "      first_dense_layers: 1, num_expert_groups: 4, topk_groups: 2}\n"
                                    "mla: {kv_lora_rank: 64, qk_nope_head_dim: 32, qk_rope_head_dim: 16, v_head_dim: 32}\n");
  ASSERT_TRUE(m.moe && m.mla);
  EXPECT_EQ(m.moe->num_experts, 16);
  EXPECT_EQ(m.moe->expert_ffn_hidden_size, 128);
  EXPECT_EQ(m.moe->topk_groups, 2);
  EXPECT_EQ(m.mla->q_lora_rank, 0);
  EXPECT_EQ(m.mla->qk_rope_head_dim, 16);
  // expert width defaults to the dense FFN width.
  EXPECT_EQ(model(std::string(kModel) + "moe: {num_experts: 8, top_k: 2}\n").moe->expert_ffn_hidden_size, 1024);
  EXPECT_EQ(config_error([] { model(std::string(kModel) + "moe: {num_experts: 8, top_k: 9}\n"); }),
            "m.yaml:7: model.moe.top_k: expected an integer in [1, 8], found '9'");
  // 2 groups of 4 experts cannot supply top_k = 6 from one group.
  EXPECT_EQ(config_error([] {
              model(std::string(kModel) + "moe: {num_experts: 8, top_k: 6, num_expert_groups: 2, topk_groups: 1}\n");
            }),
            "m.yaml:7: model.moe.top_k: expected at most topk_groups * experts per group (4), found 6");
  EXPECT_EQ(config_error([] { model(std::string(kModel) + "moe: {num_experts: 8, top_k: 2, first_dense_layers: 4}\n"); }),
            "m.yaml:7: model.moe.first_dense_layers: expected an integer in [0, 3], found '4'");
}

TEST(ConfigModelParser, QkNorm) {
  EXPECT_FALSE(model(kModel).qk_norm);
  EXPECT_TRUE(model(std::string(kModel) + "qk_norm: true\n").qk_norm);
  EXPECT_EQ(config_error([] {
              model(std::string(kModel) + "qk_norm: true\n"
                                          "mla: {kv_lora_rank: 64, qk_nope_head_dim: 32, qk_rope_head_dim: 16, v_head_dim: 32}\n");
            }),
            "m.yaml:7: model.qk_norm: expected false with mla (multi-head latent attention normalises its own latents), "
            "found true");
}

TEST(ConfigHardwareParser, ReadsDatasheetFields) {
  const models::HardwareSpec hw = hardware(kHardware);
  EXPECT_EQ(hw.gpu.name, "G");
  EXPECT_DOUBLE_EQ(hw.gpu.peak_tflops.at(models::Dtype::bf16), 100);
  EXPECT_DOUBLE_EQ(hw.gpu.peak_tflops.at(models::Dtype::fp8), 200);
  EXPECT_EQ(hw.gpu.peak_tflops.count(models::Dtype::fp16), 0u);
  EXPECT_DOUBLE_EQ(hw.gpu.efficiency.gemm, models::OpEfficiency{}.gemm);   // default kept
  EXPECT_EQ(hw.node.gpus_per_node, 8);
  EXPECT_DOUBLE_EQ(hw.node.nic_bandwidth_gbps, 200);
  EXPECT_TRUE(hw.gpu.calibration.empty());
}

TEST(ConfigHardwareParser, RejectsZeroBandwidthAndNegativeLatency) {
  EXPECT_EQ(config_error([] { hardware(replace(kHardware, "nic_bandwidth_gbps: 200", "nic_bandwidth_gbps: 0")); }),
            "h.yaml:11: hardware.node.nic_bandwidth_gbps: expected a number > 0, found '0'");
  EXPECT_EQ(config_error([] { hardware(replace(kHardware, "nvlink_latency_us: 0.7", "nvlink_latency_us: -1")); }),
            "h.yaml:9: hardware.node.nvlink_latency_us: expected a number >= 0, found '-1'");
  EXPECT_EQ(config_error([] { hardware(replace(kHardware, "gpus_per_node: 8", "gpus_per_node: 0")); }),
            "h.yaml:7: hardware.node.gpus_per_node: expected an integer >= 1, found '0'");
  EXPECT_EQ(config_error([] { hardware(replace(kHardware, "memory_gb: 80", "memory_gb: lots")); }),
            "h.yaml:4: hardware.gpu.memory_gb: expected a number > 0, found 'lots'");
  EXPECT_EQ(config_error([] { hardware(replace(kHardware, "{bf16: 100, fp8: 200}", "{bf16: 100, fp4: 400}")); }),
            "h.yaml:3: hardware.gpu.peak_tflops.fp4: unknown key 'fp4', did you mean 'fp8'?");
  EXPECT_EQ(config_error([] { hardware(replace(kHardware, "{bf16: 100, fp8: 200}", "{}")); }),
            "h.yaml:3: hardware.gpu.peak_tflops: expected at least one of bf16, fp16, fp8, tf32, fp32 (dense TFLOP/s), "
            "found none");
  EXPECT_EQ(config_error([] { hardware(replace(kHardware, "  pcie_bandwidth_gbps: 32\n", "")); }),
            "h.yaml:6: hardware.node: missing required key 'pcie_bandwidth_gbps' (a number > 0)");
}

TEST(ConfigHardwareParser, EfficienciesAreFractions) {
  const std::string with = replace(kHardware, "  memory_gb: 80\n", "  memory_gb: 80\n  efficiency: {gemm: 1.5}\n");
  EXPECT_EQ(config_error([&] { hardware(with); }),
            "h.yaml:5: hardware.gpu.efficiency.gemm: expected a number in (0, 1], found '1.5'");
  const std::string ok = replace(kHardware, "  memory_gb: 80\n", "  memory_gb: 80\n  efficiency: {gemm: 0.5, overlap_slowdown: 1.1}\n");
  EXPECT_DOUBLE_EQ(hardware(ok).gpu.efficiency.gemm, 0.5);
  EXPECT_DOUBLE_EQ(hardware(ok).gpu.efficiency.overlap_slowdown, 1.1);
  EXPECT_DOUBLE_EQ(hardware(ok).gpu.efficiency.overlap_sm_cost, 1.0);  // one SM per NCCL channel by default
  const std::string sm = replace(kHardware, "  memory_gb: 80\n", "  memory_gb: 80\n  efficiency: {overlap_sm_cost: 0}\n");
  EXPECT_DOUBLE_EQ(hardware(sm).gpu.efficiency.overlap_sm_cost, 0.0);
  const std::string negative =
      replace(kHardware, "  memory_gb: 80\n", "  memory_gb: 80\n  efficiency: {overlap_sm_cost: -1}\n");
  EXPECT_EQ(config_error([&] { hardware(negative); }),
            "h.yaml:5: hardware.gpu.efficiency.overlap_sm_cost: expected a number >= 0, found '-1'");
  EXPECT_DOUBLE_EQ(hardware(ok).gpu.efficiency.attention_kv_overhead, 0.0);  // no attention shape model by default
  const std::string tiles =
      replace(kHardware, "  memory_gb: 80\n", "  memory_gb: 80\n  efficiency: {attention_kv_overhead: 236}\n");
  EXPECT_DOUBLE_EQ(hardware(tiles).gpu.efficiency.attention_kv_overhead, 236.0);
  const std::string bad_tiles =
      replace(kHardware, "  memory_gb: 80\n", "  memory_gb: 80\n  efficiency: {attention_kv_overhead: -5}\n");
  EXPECT_EQ(config_error([&] { hardware(bad_tiles); }),
            "h.yaml:5: hardware.gpu.efficiency.attention_kv_overhead: expected a number >= 0, found '-5'");
}

TEST(ConfigHardwareParser, CalibrationPathIsRelativeToTheHardwareFile) {
  TempDir dir;
  dir.write("calibration/a.csv", "op,us\n");
  const std::string file =
      dir.write("hw/h.yaml", replace(kHardware, "  memory_gb: 80\n", "  memory_gb: 80\n  calibration: ../calibration/a.csv\n"));
  const models::HardwareSpec hw = parse_hardware(read_yaml_file(file, "hardware"));
  EXPECT_EQ(hw.gpu.calibration, dir.path("calibration/a.csv"));
  const std::string missing =
      dir.write("hw/m.yaml", replace(kHardware, "  memory_gb: 80\n", "  memory_gb: 80\n  calibration: nope.csv\n"));
  const std::string message = config_error([&] { parse_hardware(read_yaml_file(missing, "hardware")); });
  EXPECT_TRUE(message.starts_with(missing + ":5: hardware.gpu.calibration: expected the path of an existing")) << message;
}

TEST(ConfigTopologyParser, ReadsKeysAndChecksRatios) {
  const models::TopologySpec t = topology("kind: fat_tree\nnodes: 64\nnodes_per_leaf: 4\npod_nodes: 16\n"
                                          "pod_oversubscription: 7\nrouting: single_path\n");
  EXPECT_EQ(t.kind, models::TopologyKind::fat_tree);
  EXPECT_EQ(t.nodes, 64);
  EXPECT_EQ(t.pod_nodes, 16);
  EXPECT_DOUBLE_EQ(t.pod_oversubscription, 7.0);
  EXPECT_EQ(t.routing, models::Routing::single_path);
  EXPECT_DOUBLE_EQ(t.link_latency_us, models::TopologySpec{}.link_latency_us);
  EXPECT_EQ(config_error([] { topology("kind: fat_tree\nnodes: 4\nleaf_oversubscription: 0.5\n"); }),
            "t.yaml:3: topology.leaf_oversubscription: expected a number >= 1, found '0.5'");
  EXPECT_EQ(config_error([] { topology("kind: fat_tree\nnodes: 0\n"); }),
            "t.yaml:2: topology.nodes: expected an integer >= 1, found '0'");
  EXPECT_EQ(config_error([] { topology("kind: fat_tree\nnodes: 64\nnodes_per_leaf: 4\npod_nodes: 6\n"); }),
            "t.yaml:4: topology.pod_nodes: expected 0 or a multiple of nodes_per_leaf (4), found 6");
  EXPECT_EQ(config_error([] { topology("kind: fattree\nnodes: 4\n"); }),
            "t.yaml:1: topology.kind: expected one of rail_optimized | fat_tree | single_switch, found 'fattree' "
            "(did you mean 'fat_tree'?)");
  EXPECT_EQ(config_error([] { topology("kind: fat_tree\nnodes: 4\nswitch_latency_us: -0.1\n"); }),
            "t.yaml:3: topology.switch_latency_us: expected a number >= 0, found '-0.1'");
  const models::TopologySpec q = topology("kind: fat_tree\nnodes: 8\nrouting: ecmp_multi_qp\nqps_per_connection: 16\n");
  EXPECT_EQ(q.routing, models::Routing::ecmp_multi_qp);
  EXPECT_EQ(q.qps_per_connection, 16);
  EXPECT_EQ(t.qps_per_connection, 1);  // NCCL's default
  EXPECT_EQ(config_error([] { topology("kind: fat_tree\nnodes: 8\nrouting: ecmp_multi_qp\nqps_per_connection: 17\n"); }),
            "t.yaml:4: topology.qps_per_connection: expected an integer in [1, 16], found '17'");
}

TEST(ConfigTrainingParser, RequiresBatchAndSequence) {
  const models::TrainingSpec t =
      parse_training(read_yaml_text("global_batch_size: 64\nseq_length: 4096\ndtype: fp8\nrecompute: selective\n", "x.yaml", "training"));
  EXPECT_EQ(t.global_batch_size, 64);
  EXPECT_EQ(t.micro_batch_size, 1);
  EXPECT_EQ(t.dtype, models::Dtype::fp8);
  EXPECT_EQ(t.recompute, models::Recompute::selective);
  EXPECT_EQ(parse_training(read_yaml_text("global_batch_size: 8\nseq_length: 8\nrecompute: selective_op\n", "x.yaml",
                                          "training"))
                .recompute,
            models::Recompute::selective_op);
  EXPECT_EQ(config_error([] { parse_training(read_yaml_text("seq_length: 8\n", "x.yaml", "training")); }),
            "x.yaml:1: training: missing required key 'global_batch_size' (an integer >= 1)");
  EXPECT_EQ(config_error([] {
              parse_training(read_yaml_text("global_batch_size: 8\nseq_length: 8\ndtype: fp32\n", "x.yaml", "training"));
            }),
            "x.yaml:3: training.dtype: expected one of bf16 | fp16 | fp8, found 'fp32' (did you mean 'fp16'?)");
}

TEST(ConfigTrainingParser, AttentionKernelAndFp8Recipe) {
  const models::TrainingSpec d = parse_training(read_yaml_text("global_batch_size: 8\nseq_length: 8\n", "x.yaml", "training"));
  EXPECT_EQ(d.attention, models::AttentionKernel::flash);
  EXPECT_EQ(d.fp8_recipe, models::Fp8Recipe::delayed);
  const models::TrainingSpec t = parse_training(read_yaml_text(
      "global_batch_size: 8\nseq_length: 8\nattention: flash2\nfp8_recipe: tensorwise\n", "x.yaml", "training"));
  EXPECT_EQ(t.attention, models::AttentionKernel::flash2);
  EXPECT_EQ(t.fp8_recipe, models::Fp8Recipe::tensorwise);
  EXPECT_EQ(config_error([] {
              parse_training(read_yaml_text("global_batch_size: 8\nseq_length: 8\nfp8_recipe: delayd\n", "x.yaml", "training"));
            }),
            "x.yaml:3: training.fp8_recipe: expected one of delayed | tensorwise | mxfp8 | blockwise, found 'delayd' "
            "(did you mean 'delayed'?)");
  const models::TrainingSpec triton = parse_training(
      read_yaml_text("global_batch_size: 8\nseq_length: 8\nattention: flash_triton\n", "x.yaml", "training"));
  EXPECT_EQ(triton.attention, models::AttentionKernel::flash_triton);
  EXPECT_EQ(config_error([] {
              parse_training(read_yaml_text("global_batch_size: 8\nseq_length: 8\nattention: triton\n", "x.yaml", "training"));
            }),
            "x.yaml:3: training.attention: expected one of flash | flash2 | flash_triton | unfused, found 'triton' "
            "(did you mean 'flash_triton'?)");
  const std::string hw = replace(kHardware, "  memory_gb: 80\n",
                                 "  memory_gb: 80\n  efficiency: {attention_flash2: 0.3, attention_flash_triton: 0.12}\n");
  EXPECT_DOUBLE_EQ(hardware(hw).gpu.efficiency.attention_flash2, 0.3);
  EXPECT_DOUBLE_EQ(hardware(hw).gpu.efficiency.attention_flash_triton, 0.12);
  // What a calibration's attention table timed: flash by default.
  EXPECT_EQ(hardware(kHardware).gpu.calibration_attention, models::AttentionKernel::flash);
  const std::string measured = replace(kHardware, "  memory_gb: 80\n", "  memory_gb: 80\n  calibration_attention: flash2\n");
  EXPECT_EQ(hardware(measured).gpu.calibration_attention, models::AttentionKernel::flash2);
  const std::string unfused = replace(kHardware, "  memory_gb: 80\n", "  memory_gb: 80\n  calibration_attention: unfused\n");
  EXPECT_NE(config_error([&] { hardware(unfused); }).find("expected one of flash | flash2 | flash_triton, found 'unfused'"),
            std::string::npos);
}

TEST(ConfigTrainingParser, MoeFp8PaddingKeys) {
  const models::TrainingSpec d = parse_training(read_yaml_text("global_batch_size: 8\nseq_length: 8\n", "x.yaml", "training"));
  EXPECT_EQ(d.moe_flex_backend, models::MoeFlexBackend::deepep);  // Megatron-Core's default
  EXPECT_FALSE(d.moe_router_padding_for_fp8);
  const models::TrainingSpec t = parse_training(read_yaml_text(
      "global_batch_size: 8\nseq_length: 8\nmoe_token_dispatcher: flex\nmoe_flex_backend: hybridep\n"
      "moe_router_padding_for_fp8: true\n",
      "x.yaml", "training"));
  EXPECT_EQ(t.moe_flex_backend, models::MoeFlexBackend::hybridep);
  EXPECT_TRUE(t.moe_router_padding_for_fp8);
  EXPECT_EQ(config_error([] {
              parse_training(read_yaml_text("global_batch_size: 8\nseq_length: 8\nmoe_flex_backend: hybrid\n", "x.yaml",
                                            "training"));
            }),
            "x.yaml:3: training.moe_flex_backend: expected one of deepep | hybridep, found 'hybrid' "
            "(did you mean 'hybridep'?)");
}

TEST(ConfigTrainingParser, CrossEntropyFusionImpl) {
  const models::TrainingSpec t = parse_training(read_yaml_text(
      "global_batch_size: 8\nseq_length: 8\nfused_cross_entropy: true\ncross_entropy_fusion_impl: te\n", "x.yaml",
      "training"));
  EXPECT_EQ(t.cross_entropy_fusion_impl, models::CrossEntropyFusionImpl::te);
  EXPECT_EQ(parse_training(read_yaml_text("global_batch_size: 8\nseq_length: 8\n", "x.yaml", "training"))
                .cross_entropy_fusion_impl,
            models::CrossEntropyFusionImpl::native);
  EXPECT_EQ(config_error([] {
              parse_training(read_yaml_text("global_batch_size: 8\nseq_length: 8\ncross_entropy_fusion_impl: te\n",
                                            "x.yaml", "training"));
            }),
            "x.yaml:3: training.cross_entropy_fusion_impl: expected native unless fused_cross_entropy is true, found te");
}

TEST(ConfigTrainingParser, LossReduce) {
  EXPECT_EQ(parse_training(read_yaml_text("global_batch_size: 8\nseq_length: 8\n", "x.yaml", "training")).loss_reduce,
            models::LossReduce::step);
  EXPECT_EQ(parse_training(read_yaml_text("global_batch_size: 8\nseq_length: 8\nloss_reduce: microbatch\n", "x.yaml",
                                          "training"))
                .loss_reduce,
            models::LossReduce::microbatch);
  EXPECT_EQ(config_error([] {
              parse_training(read_yaml_text("global_batch_size: 8\nseq_length: 8\nloss_reduce: layer\n", "x.yaml",
                                            "training"));
            }),
            "x.yaml:3: training.loss_reduce: expected one of step | microbatch, found 'layer'");
}

TEST(ConfigTrainingParser, CombinedOneFOneBKeys) {
  auto parse = [](const std::string& extra) {
    return parse_training(read_yaml_text("global_batch_size: 8\nseq_length: 8\n" + extra, "x.yaml", "training"));
  };
  const models::TrainingSpec d = parse("");
  EXPECT_FALSE(d.overlap_moe_expert_parallel_comm);
  EXPECT_FALSE(d.delay_wgrad_compute);
  const models::TrainingSpec t = parse("overlap_moe_expert_parallel_comm: true\ndelay_wgrad_compute: true\n");
  EXPECT_TRUE(t.overlap_moe_expert_parallel_comm);
  EXPECT_TRUE(t.delay_wgrad_compute);
  EXPECT_EQ(config_error([&] { parse("delay_wgrad_compute: true\n"); }),
            "x.yaml:3: training.delay_wgrad_compute: expected false unless overlap_moe_expert_parallel_comm is true, "
            "found true");
}

TEST(ConfigTrainingParser, MoeRouterFusion) {
  auto parse = [](const std::string& extra) {
    return parse_training(read_yaml_text("global_batch_size: 8\nseq_length: 8\n" + extra, "x.yaml", "training"));
  };
  EXPECT_FALSE(parse("").moe_router_fusion);  // Megatron-Core's default
  EXPECT_TRUE(parse("moe_router_fusion: true\n").moe_router_fusion);
  EXPECT_EQ(config_error([&] { parse("moe_router_fusion: fused\n"); }),
            "x.yaml:3: training.moe_router_fusion: expected true or false, found 'fused'");
}

TEST(ConfigTrainingParser, PpSendWait) {
  auto parse = [](const std::string& extra) {
    return parse_training(read_yaml_text("global_batch_size: 8\nseq_length: 8\n" + extra, "x.yaml", "training"));
  };
  EXPECT_EQ(parse("").pp_send_wait, models::PpSendWait::automatic);  // Megatron-Core's, by schedule
  EXPECT_EQ(parse("pp_send_wait: blocking\n").pp_send_wait, models::PpSendWait::blocking);
  EXPECT_EQ(parse("pp_send_wait: deferred\n").pp_send_wait, models::PpSendWait::deferred);
  EXPECT_EQ(parse("pp_send_wait: background\n").pp_send_wait, models::PpSendWait::background);
  EXPECT_EQ(config_error([&] { parse("pp_send_wait: async\n"); }),
            "x.yaml:3: training.pp_send_wait: expected one of auto | blocking | deferred | background, found 'async'");
}

TEST(ConfigTrainingParser, OptimizerStates) {
  auto parse = [](const std::string& extra) {
    return parse_training(read_yaml_text("global_batch_size: 8\nseq_length: 8\n" + extra, "x.yaml", "training"));
  };
  const models::OptimizerStates d = parse("").optimizer_states;
  EXPECT_EQ(d.main_params, models::StateDtype::fp32);
  EXPECT_FALSE(d.param_remainders);
  EXPECT_EQ(d.exp_avg, models::StateDtype::fp32);
  const models::OptimizerStates s =
      parse("optimizer_states: {param_remainders: true, exp_avg: bf16, exp_avg_sq: fp8}\n").optimizer_states;
  EXPECT_TRUE(s.param_remainders);
  EXPECT_EQ(s.exp_avg, models::StateDtype::bf16);
  EXPECT_EQ(s.exp_avg_sq, models::StateDtype::fp8);
  EXPECT_EQ(config_error([&] { parse("optimizer_states:\n  main_params: fp8\n"); }),
            "x.yaml:4: training.optimizer_states.main_params: expected fp32, bf16 or fp16 (no fp8 master weights), "
            "found fp8");
  EXPECT_EQ(config_error([&] { parse("optimizer_states:\n  main_params: fp16\n  param_remainders: true\n"); }),
            "x.yaml:5: training.optimizer_states.param_remainders: expected true only with main_params fp32, found "
            "main_params fp16");
  EXPECT_EQ(config_error([&] { parse("dtype: fp16\noptimizer_states:\n  param_remainders: true\n"); }),
            "x.yaml:5: training.optimizer_states.param_remainders: expected true only with bf16 weights "
            "(training.dtype bf16 or fp8), found training.dtype fp16");
  EXPECT_NE(config_error([&] { parse("optimizer_states: {exp_avg: int8}\n"); }).find("expected one of fp32 | bf16 | fp16 | fp8"),
            std::string::npos);
  EXPECT_NE(config_error([&] { parse("optimizer_states: {exp_avgs: bf16}\n"); }).find("did you mean 'exp_avg'"),
            std::string::npos);
}

TEST(ConfigSimulationAndOutput, DefaultsAndChoices) {
  const models::SimulationSpec s = parse_simulation(read_yaml_text("network: analytical\nseed: 7\n", "s.yaml", "simulation"));
  EXPECT_EQ(s.network, models::NetworkMode::analytical);
  EXPECT_EQ(s.seed, 7u);
  EXPECT_EQ(s.sync, models::SyncMode::window);
  EXPECT_EQ(config_error([] { parse_simulation(read_yaml_text("chunk_bytes: 0\n", "s.yaml", "simulation")); }),
            "s.yaml:1: simulation.chunk_bytes: expected an integer >= 1, found '0'");
  const models::OutputSpec o = parse_output(read_yaml_text("timeline_gpus: 0-7,64\n", "o.yaml", "output"), "out/x");
  EXPECT_EQ(o.dir, "out/x");
  EXPECT_EQ(o.timeline_gpus, "0-7,64");
  EXPECT_EQ(config_error([] { parse_output(read_yaml_text("timeline_gpus: 7-3\n", "o.yaml", "output"), "out"); }),
            "o.yaml:1: output.timeline_gpus: expected auto | all | first_replica | a range list like \"0-63,512-575\", "
            "found '7-3'");
}

TEST(ConfigGpuRangeList, ParsesRangesAndSingles) {
  const auto ranges = parse_gpu_range_list("0-63, 512-575,7");
  ASSERT_TRUE(ranges);
  ASSERT_EQ(ranges->size(), 3u);
  EXPECT_EQ((*ranges)[1].first, 512);
  EXPECT_EQ((*ranges)[1].last, 575);
  EXPECT_EQ((*ranges)[2].first, 7);
  EXPECT_EQ((*ranges)[2].last, 7);
  EXPECT_FALSE(parse_gpu_range_list("auto"));
  EXPECT_FALSE(parse_gpu_range_list("1-"));
  EXPECT_FALSE(parse_gpu_range_list("1,,2"));
}

}  // namespace
}  // namespace pf::config
