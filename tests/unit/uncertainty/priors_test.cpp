// Priors: the code defaults, a hardware file's uncertainty block over them,
// narrowing by measured tables, clipping at physical limits, bad input.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "io/config/cluster_loader.h"
#include "io/config/hardware_parser.h"
#include "io/config/yaml_reader.h"
#include "models/uncertainty/parameters.h"

namespace pf::models::uncertainty {
namespace {

const std::string kGpu = R"(
gpu:
  name: test-gpu
  peak_tflops: {bf16: 100}
  memory_gb: 80
  memory_bandwidth_gbps: 2000
  sustained_clock: 0.95
  efficiency: {gemm: 0.8, attention: 0.6, elementwise: 0.85, overlap_slowdown: 1.1}
node: {gpus_per_node: 8, nvlink_bandwidth_gbps: 300, nvlink_latency_us: 1, nics_per_node: 8,
       nic_bandwidth_gbps: 200, nic_latency_us: 2, pcie_bandwidth_gbps: 32}
)";

HardwareSpec hardware(const std::string& extra) {
  return config::parse_hardware(config::read_yaml_text(kGpu + extra, "test.yaml"));
}

std::string config_error(const std::string& extra) {
  try {
    hardware(extra);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

const Prior* find(const std::vector<Prior>& priors, std::string_view key) {
  for (const Prior& p : priors) {
    if (p.parameter->key == key) return &p;
  }
  return nullptr;
}

TEST(Priors, CodeDefaultsUnlessTheHardwareFileStatesOne) {
  ExperimentSpec e;
  e.hardware = hardware(R"(
uncertainty:
  - {key: gpu.efficiency.gemm, low: 0.7, high: 1.1, source: "my table", measure: "run it"}
)");
  const auto priors = priors_for(e);
  const Prior* gemm = find(priors, "hardware.gpu.efficiency.gemm");
  ASSERT_NE(gemm, nullptr);
  EXPECT_TRUE(gemm->from_preset);
  EXPECT_EQ(gemm->low, 0.7);
  EXPECT_EQ(gemm->high, 1.1);
  EXPECT_EQ(gemm->source, "my table");
  EXPECT_EQ(gemm->nominal, 0.8);
  const Prior* clock = find(priors, "hardware.gpu.sustained_clock");
  ASSERT_NE(clock, nullptr);
  EXPECT_FALSE(clock->from_preset);
  EXPECT_EQ(clock->low, find_parameter("hardware.gpu.sustained_clock")->low);
  // Not run by this experiment (flash attention): FlashAttention-2's rate is not sampled.
  EXPECT_EQ(find(priors, "hardware.gpu.efficiency.attention_flash2"), nullptr);
  e.training.attention = AttentionKernel::flash2;
  e.hardware.gpu.efficiency.attention_flash2 = 0.3;
  EXPECT_NE(find(priors_for(e), "hardware.gpu.efficiency.attention_flash2"), nullptr);
  EXPECT_EQ(find(priors_for(e), "hardware.gpu.efficiency.attention"), nullptr);
  e.hardware.gpu.efficiency.attention_flash_triton = 0.12;
  EXPECT_EQ(find(priors_for(e), "hardware.gpu.efficiency.attention_flash_triton"), nullptr);
  e.training.attention = AttentionKernel::flash_triton;
  EXPECT_NE(find(priors_for(e), "hardware.gpu.efficiency.attention_flash_triton"), nullptr);
  EXPECT_EQ(find(priors_for(e), "hardware.gpu.efficiency.attention_flash2"), nullptr);
}

TEST(Priors, EfficienciesAndClocksNeverLeaveTheirPhysicalRange) {
  ExperimentSpec e;
  e.hardware = hardware("");
  const auto priors = priors_for(e);
  const Prior* clock = find(priors, "hardware.gpu.sustained_clock");
  EXPECT_EQ(clock->value(1.07), 1.0);  // 0.95 x 1.07 > 1: clipped
  EXPECT_NEAR(clock->value(0.96), 0.912, 1e-12);
  const Prior* overlap = find(priors, "hardware.gpu.efficiency.overlap_slowdown");
  EXPECT_EQ(overlap->value(0.5), 1.0);  // never faster than alone
}

TEST(Priors, MeasuredTablesNarrowTheKernelRates) {
  ExperimentSpec e;
  e.hardware = hardware("");
  e.hardware.gpu.calibration = "some/table.csv";
  const auto priors = priors_for(e);
  const Prior* gemm = find(priors, "hardware.gpu.efficiency.gemm");
  EXPECT_TRUE(gemm->measured);
  EXPECT_EQ(gemm->low, 1 - kMeasuredRange);  // the default 0.85 .. 1.03 narrowed to 0.95 .. 1.03
  EXPECT_EQ(gemm->high, find_parameter("hardware.gpu.efficiency.gemm")->high);
  EXPECT_FALSE(find(priors, "hardware.nccl.latency_scale")->measured);
}

TEST(Priors, EveryShippedPresetParsesAndStatesItsSources) {
  for (const char* preset : {"a100-sxm-80gb", "h100-sxm-80gb", "h200-sxm-141gb", "b200-192gb", "gh200-96gb", "h20-96gb"}) {
    const HardwareSpec hw = config::parse_hardware(
        config::read_yaml_file(std::string(PF_SOURCE_DIR) + "/configs/hardware/" + preset + ".yaml"));
    EXPECT_FALSE(hw.priors.empty()) << preset;
    for (const PriorSpec& p : hw.priors) {
      EXPECT_FALSE(p.source.empty()) << preset << " " << p.key;
      EXPECT_LE(p.low, 1.0);
      EXPECT_GE(p.high, 1.0);
    }
  }
}

TEST(Priors, BadUncertaintyBlocksNameTheKeyAndWhatWasExpected) {
  EXPECT_NE(config_error("uncertainty:\n  - {key: gpu.efficiency.gemmm, low: 0.9, high: 1.1}\n")
                .find("expected one of gpu.sustained_clock"),
            std::string::npos);
  EXPECT_NE(config_error("uncertainty:\n  - {key: gpu.efficiency.gemm, low: 1.2, high: 1.3}\n").find("at most 1"),
            std::string::npos);
  EXPECT_NE(config_error("uncertainty:\n  - {key: gpu.efficiency.gemm, low: 0.8, high: 0.9}\n").find("at least 1"),
            std::string::npos);
  EXPECT_NE(config_error("uncertainty:\n  - {key: gpu.efficiency.gemm, low: 0.8, high: 1.2}\n"
                         "  - {key: gpu.efficiency.gemm, low: 0.9, high: 1.1}\n")
                .find("given twice"),
            std::string::npos);
  EXPECT_NE(config_error("uncertainty: {gemm: 1}\n").find("sequence"), std::string::npos);
  EXPECT_NE(config_error("uncertainty:\n  - {key: gpu.efficiency.gemm, low: 0.8, high: 1.2, sorce: x}\n")
                .find("sorce"),
            std::string::npos);
  EXPECT_NE(config_error("uncertainty:\n  - {key: gpu.efficiency.gemmm, low: 0.9, high: 1.1}\n").find("test.yaml"),
            std::string::npos);  // names the file
  EXPECT_EQ(config_error("uncertainty:\n  - {key: gpu.efficiency.gemm, low: 0.8, high: 1.2}\n"), "");
}

}  // namespace
}  // namespace pf::models::uncertainty
