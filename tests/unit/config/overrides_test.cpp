// --set KEY=VALUE: on inlined and path-named parts, adding optional keys, and errors.
#include <gtest/gtest.h>

#include "experiment_fixture.h"
#include "io/config/experiment_loader.h"
#include "io/config/overrides.h"
#include "io/config/yaml_reader.h"

namespace pf::config {
namespace {

using namespace testing;

TEST(ConfigOverrides, ParseSplitsAtTheFirstEquals) {
  const Override o = parse_override("output.dir=a=b");
  EXPECT_EQ(o.key, "output.dir");
  EXPECT_EQ(o.value, "a=b");
  EXPECT_EQ(o.label, "--set output.dir=a=b");
  EXPECT_EQ(config_error([] { parse_override("parallelism.tp"); }), "--set parallelism.tp: expected KEY=VALUE, found no '='");
  EXPECT_EQ(config_error([] { parse_override("parallelism..tp=4"); }),
            "--set parallelism..tp=4: expected a dotted key path like parallelism.tp, found 'parallelism..tp'");
  EXPECT_EQ(config_error([] { parse_override("parallelism.tp="); }),
            "--set parallelism.tp=: expected a value after '=', found nothing");
}

TEST(ConfigOverrides, ChangeAPathNamedPart) {
  TempDir dir;
  const std::string exp = write_experiment(dir);
  const models::ExperimentSpec base = load_experiment(exp);
  const models::ExperimentSpec spec =
      load_experiment(exp, {"hardware.node.nic_bandwidth_gbps=400", "model.num_kv_heads=4", "topology.nodes=4"});
  EXPECT_DOUBLE_EQ(base.hardware.node.nic_bandwidth_gbps, 200);
  EXPECT_DOUBLE_EQ(spec.hardware.node.nic_bandwidth_gbps, 400);
  EXPECT_EQ(spec.model.num_kv_heads, 4);
  EXPECT_EQ(spec.parallelism.dp, 4);   // re-derived from 32 GPUs
}

TEST(ConfigOverrides, ChangeAnInlinedPart) {
  TempDir dir;
  const std::string text = replace_text(kExperimentYaml, "topology: ../parts/topology.yaml\n",
                                        "topology:\n  kind: single_switch\n  nodes: 2\n");
  const std::string exp = write_experiment(dir, text);
  EXPECT_EQ(load_experiment(exp, {"topology.nodes=8"}).topology.nodes, 8);
  EXPECT_EQ(load_experiment(exp, {"parallelism.tp=2"}).parallelism.dp, 4);
}

TEST(ConfigOverrides, AddOptionalKeysAndSequences) {
  TempDir dir;
  const std::string exp = write_experiment(dir);
  const models::ExperimentSpec spec = load_experiment(
      exp, {"parallelism.layers_per_stage=[3, 1]", "simulation.network=analytical", "hardware.gpu.peak_tflops.fp8=200",
            "training.dtype=fp8", "output.timeline=false"});
  EXPECT_EQ(spec.parallelism.layers_per_stage, (std::vector<int>{3, 1}));
  EXPECT_EQ(spec.simulation.network, models::NetworkMode::analytical);
  EXPECT_DOUBLE_EQ(spec.hardware.gpu.peak_tflops.at(models::Dtype::fp8), 200);
  EXPECT_EQ(spec.training.dtype, models::Dtype::fp8);
  EXPECT_FALSE(spec.output.timeline);
}

TEST(ConfigOverrides, LastOneWinsAndNullRestoresTheDefault) {
  TempDir dir;
  const std::string exp = write_experiment(dir, replace_text(kExperimentYaml, "  pp: 2\n", "  pp: 2\n  dp: 2\n"));
  EXPECT_EQ(load_experiment(exp, {"parallelism.tp=1", "parallelism.tp=2", "parallelism.dp=~"}).parallelism.dp, 4);
}

TEST(ConfigOverrides, UnknownKeyNamesTheOverride) {
  TempDir dir;
  const std::string exp = write_experiment(dir);
  EXPECT_EQ(config_error([&] { load_experiment(exp, {"parallelism.tpp=4"}); }),
            "--set parallelism.tpp=4: unknown key 'tpp', did you mean 'tp'?");
  EXPECT_EQ(config_error([&] { load_experiment(exp, {"hardware.nod.nic_bandwidth_gbps=400"}); }),
            "--set hardware.nod.nic_bandwidth_gbps=400: hardware.nod: unknown key 'nod', did you mean 'node'?");
  EXPECT_EQ(config_error([&] { load_experiment(exp, {"paralelism.tp=4"}); }),
            "--set paralelism.tp=4: paralelism: unknown key 'paralelism', did you mean 'parallelism'?");
}

// gpu.power_limit_w needs the TDP it is below, and may not exceed it
// (models/compute/power_limit.h).
TEST(ConfigOverrides, PowerLimitNeedsATdpAndStaysBelowIt) {
  TempDir dir;
  const std::string exp = write_experiment(dir);
  EXPECT_EQ(config_error([&] { load_experiment(exp, {"hardware.gpu.power_limit_w=500"}); }),
            "--set hardware.gpu.power_limit_w=500: expected a hardware file that states gpu.tdp_w (the rated board "
            "power the limit is below), found power_limit_w without tdp_w");
  EXPECT_EQ(config_error([&] { load_experiment(exp, {"hardware.gpu.tdp_w=700", "hardware.gpu.power_limit_w=800"}); }),
            "--set hardware.gpu.power_limit_w=800: expected a power limit of at most gpu.tdp_w = 700 W, found 800 W");
  const auto capped = load_experiment(exp, {"hardware.gpu.tdp_w=700", "hardware.gpu.power_limit_w=500"});
  EXPECT_DOUBLE_EQ(capped.hardware.gpu.tdp_w, 700);
  EXPECT_DOUBLE_EQ(capped.hardware.gpu.power_limit_w, 500);
  EXPECT_DOUBLE_EQ(capped.hardware.gpu.clock_power_exponent, 3.3);
  EXPECT_EQ(config_error([&] { load_experiment(exp, {"hardware.gpu.tdp_w=0"}); }),
            "--set hardware.gpu.tdp_w=0: expected a number > 0, found '0'");
}

// parallelism.expert_tp: 1 or tp; with 1 (MoE parallel folding) and tp > 1,
// sequence parallelism is required, as Megatron-Core asserts.
TEST(ConfigOverrides, ExpertTpIsOneOrTpAndNeedsSequenceParallelism) {
  TempDir dir;
  const std::string exp = write_experiment(dir);  // tp 4, pp 2 on 16 GPUs: dp 2
  EXPECT_EQ(config_error([&] { load_experiment(exp, {"parallelism.expert_tp=2"}); }),
            "--set parallelism.expert_tp=2: expected 1 or tp (4): an expert TP group other than the dense layers' is "
            "not modelled, found 2");
  EXPECT_EQ(config_error([&] { load_experiment(exp, {"parallelism.expert_tp=1"}); }),
            "--set parallelism.expert_tp=1: expected sequence_parallel: true with expert_tp 1 and tp > 1, found 1");
  EXPECT_EQ(config_error([&] {
              load_experiment(exp, {"parallelism.expert_tp=1", "parallelism.sequence_parallel=true", "parallelism.ep=3"});
            }),
            "--set parallelism.ep=3: expected a divisor of tp*cp*dp (8) with expert_tp 1, found 3");
  EXPECT_EQ(load_experiment(exp, {"parallelism.expert_tp=4"}).parallelism.etp(), 4);
  EXPECT_EQ(load_experiment(exp).parallelism.etp(), 4);  // default: tp
}

TEST(ConfigOverrides, BadValuesNameTheOverride) {
  TempDir dir;
  const std::string exp = write_experiment(dir);
  EXPECT_EQ(config_error([&] { load_experiment(exp, {"hardware.node.nic_bandwidth_gbps=0"}); }),
            "--set hardware.node.nic_bandwidth_gbps=0: expected a number > 0, found '0'");
  EXPECT_EQ(config_error([&] { load_experiment(exp, {"hardware.gpu.sustained_clock=1.2"}); }),
            "--set hardware.gpu.sustained_clock=1.2: expected a number in (0, 1], found '1.2'");
  EXPECT_DOUBLE_EQ(load_experiment(exp, {"hardware.gpu.sustained_clock=0.9"}).hardware.gpu.sustained_clock, 0.9);
  EXPECT_EQ(config_error([&] { load_experiment(exp, {"training.recompute=partial"}); }),
            "--set training.recompute=partial: expected one of none | selective | full | selective_op, found 'partial'");
  EXPECT_EQ(config_error([&] { load_experiment(exp, {"parallelism.tp=[1, 2]"}); }),
            "--set parallelism.tp=[1, 2]: expected an integer >= 1, found a sequence");
  EXPECT_EQ(config_error([&] { load_experiment(exp, {"parallelism.layers_per_stage=[3, x]"}); }),
            "--set parallelism.layers_per_stage=[3, x]: parallelism.layers_per_stage[1]: expected an integer >= 0, "
            "found 'x'");
}

TEST(ConfigOverrides, CannotDescendIntoAScalar) {
  TempDir dir;
  const std::string exp = write_experiment(dir);
  EXPECT_EQ(config_error([&] { load_experiment(exp, {"parallelism.tp.size=4"}); }),
            exp + ":6: parallelism.tp: cannot apply --set parallelism.tp.size=4: expected a mapping here, found '4'");
}

TEST(ConfigOverrides, ReplaceAWholePartByPathFromTheWorkingDirectory) {
  TempDir dir;
  const std::string exp = write_experiment(dir);
  const std::string other = dir.write("elsewhere/big.yaml", replace_text(kModelYaml, "layers: 4", "layers: 8"));
  EXPECT_EQ(load_experiment(exp, {"model=" + other}).model.layers, 8);
}

}  // namespace
}  // namespace pf::config

namespace pf::config {
namespace {

using namespace testing;

// The host model's knobs: the server's host CPU factor (a positive number,
// default 1) and the MoE token dispatcher (alltoall by default, or flex).
TEST(ConfigOverrides, HostOverheadScaleAndMoeTokenDispatcher) {
  TempDir dir;
  const std::string exp = write_experiment(dir);
  const models::ExperimentSpec base = load_experiment(exp);
  EXPECT_DOUBLE_EQ(base.hardware.node.host_overhead_scale, 1.0);
  EXPECT_EQ(base.training.moe_token_dispatcher, models::MoeTokenDispatcher::alltoall);
  const models::ExperimentSpec grace =
      load_experiment(exp, {"hardware.node.host_overhead_scale=2.75", "training.moe_token_dispatcher=flex"});
  EXPECT_DOUBLE_EQ(grace.hardware.node.host_overhead_scale, 2.75);
  EXPECT_EQ(grace.training.moe_token_dispatcher, models::MoeTokenDispatcher::flex);
  EXPECT_EQ(config_error([&] { load_experiment(exp, {"hardware.node.host_overhead_scale=0"}); }),
            "--set hardware.node.host_overhead_scale=0: expected a number > 0, found '0'");
  EXPECT_EQ(config_error([&] { load_experiment(exp, {"training.moe_token_dispatcher=deepep"}); }),
            "--set training.moe_token_dispatcher=deepep: expected one of alltoall | flex, found 'deepep'");
}

// training.moe_load_imbalance: the busiest EP rank's share over the mean, 1 by default, never below 1.
TEST(ConfigOverrides, MoeLoadImbalance) {
  TempDir dir;
  const std::string exp = write_experiment(dir);
  EXPECT_DOUBLE_EQ(load_experiment(exp).training.moe_load_imbalance, 1.0);
  EXPECT_DOUBLE_EQ(load_experiment(exp, {"training.moe_load_imbalance=1.63"}).training.moe_load_imbalance, 1.63);
  EXPECT_EQ(config_error([&] { load_experiment(exp, {"training.moe_load_imbalance=0.9"}); }),
            "--set training.moe_load_imbalance=0.9: expected a number >= 1, found '0.9'");
}

// training.cuda_graph_scope: Megatron-Core's module names, its own pairing
// rules, and no scope beside launch: cuda_graph.
TEST(ConfigOverrides, CudaGraphScope) {
  TempDir dir;
  const std::string exp = write_experiment(dir);
  using S = models::CudaGraphScope;
  EXPECT_FALSE(load_experiment(exp).training.cuda_graph_scope.any());
  const S scope =
      load_experiment(exp, {"training.cuda_graph_scope=[attn, moe_router, moe_preprocess]"}).training.cuda_graph_scope;
  EXPECT_TRUE(scope.has(S::attn) && scope.has(S::moe_router) && scope.has(S::moe_preprocess));
  EXPECT_FALSE(scope.has(S::mlp) || scope.has(S::moe));
  EXPECT_EQ(config_error([&] { load_experiment(exp, {"training.cuda_graph_scope=[atn]"}); }),
            "--set training.cuda_graph_scope=[atn]: training.cuda_graph_scope[0]: expected one of attn | mlp | moe_router | moe_preprocess | moe, "
            "found 'atn' (did you mean 'attn'?)");
  EXPECT_EQ(config_error([&] { load_experiment(exp, {"training.cuda_graph_scope=attn"}); }),
            "--set training.cuda_graph_scope=attn: expected a sequence of modules, e.g. [attn, moe_router, "
            "moe_preprocess], found 'attn'");
  EXPECT_NE(config_error([&] { load_experiment(exp, {"training.cuda_graph_scope=[moe_preprocess]"}); })
                .find("expected moe_router beside moe_preprocess"),
            std::string::npos);
  EXPECT_NE(config_error([&] { load_experiment(exp, {"training.cuda_graph_scope=[moe, moe_router]"}); })
                .find("expected moe or moe_router/moe_preprocess, not both"),
            std::string::npos);
  EXPECT_NE(config_error([&] { load_experiment(exp, {"training.cuda_graph_scope=[attn, attn]"}); })
                .find("expected each module once, found 'attn' again"),
            std::string::npos);
  EXPECT_NE(config_error([&] {
              load_experiment(exp, {"training.launch=cuda_graph", "training.cuda_graph_scope=[attn]"});
            }).find("expected no scope with launch: cuda_graph"),
            std::string::npos);
}

// hardware.nccl.p2p_nvlink_efficiency: a share of the NVLink rate, (0, 1].
TEST(ConfigOverrides, P2pNvlinkEfficiency) {
  TempDir dir;
  const std::string exp = write_experiment(dir);
  EXPECT_DOUBLE_EQ(load_experiment(exp, {"hardware.nccl.p2p_nvlink_efficiency=0.8"}).hardware.nccl.p2p_nvlink_efficiency,
                   0.8);
  for (const char* bad : {"0", "1.2"}) {
    const std::string set = std::string("hardware.nccl.p2p_nvlink_efficiency=") + bad;
    EXPECT_EQ(config_error([&] { load_experiment(exp, {set}); }),
              "--set " + set + ": expected a number in (0, 1], found '" + bad + "'");
  }
}

}  // namespace
}  // namespace pf::config
