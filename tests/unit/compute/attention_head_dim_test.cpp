// Attention by head dimension (gpu.efficiency.attention_head_dim and
// attention_flash2_head_dim; models/compute/README.md): no dependence where a
// preset has no measurement, the padding rule by hand, and the shipped
// Hopper rates against the measured H200 runs they were not fitted on (head
// dims 56, 112 and 144, which only the padding rule prices).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "io/config/hardware_parser.h"
#include "io/config/yaml_reader.h"
#include "models/compute/roofline.h"
#include "tests/unit/compute/gh200.h"

namespace pf::models {
namespace {

AttentionShape shape(std::int64_t head_dim, FlashKernel kernel) {
  AttentionShape s;
  s.batch = 2;
  s.heads = 16;
  s.kv_heads = 16;
  s.head_dim = head_dim;
  s.seq_q = s.seq_kv = 4096;
  s.causal = true;
  s.kernel = kernel;
  return s;
}

// Seconds per FLOP at this head dimension over seconds per FLOP at 128.
double slowdown(const Roofline& r, std::int64_t head_dim, FlashKernel kernel = FlashKernel::fused) {
  const ComputeOp op = attention_op(shape(head_dim, kernel), Dtype::bf16);
  const ComputeOp ref = attention_op(shape(128, kernel), Dtype::bf16);
  return (r.compute_seconds(op) / op.flops) / (r.compute_seconds(ref) / ref.flops);
}

TEST(AttentionHeadDim, UnmeasuredPresetsHaveNoDependence) {
  const Roofline r(test::gh200());
  for (std::int64_t hd : {32, 64, 96, 112, 192, 256}) EXPECT_DOUBLE_EQ(slowdown(r, hd), 1.0) << hd;
}

TEST(AttentionHeadDim, OtherHeadDimsRunAsTheNextBuiltSizeUp) {
  GpuSpec gpu = test::gh200();
  gpu.efficiency.attention_head_dim = {true, 0.8, 0.7, 0.6};
  gpu.efficiency.attention_flash2_head_dim = {true, 0.9, 0.85, 0.75};
  const Roofline r(gpu);
  EXPECT_NEAR(slowdown(r, 64), 1 / 0.8, 1e-12);
  EXPECT_NEAR(slowdown(r, 32), 1 / (0.8 * 0.5), 1e-12);     // as 64
  EXPECT_NEAR(slowdown(r, 96), 1 / 0.75, 1e-12);            // as 128
  EXPECT_NEAR(slowdown(r, 144), 1 / (0.7 * 0.75), 1e-12);   // as 192
  EXPECT_NEAR(slowdown(r, 224), 1 / (0.6 * 0.875), 1e-12);  // as 256
  EXPECT_NEAR(slowdown(r, 512), 1 / 0.6, 1e-12);            // nothing wider to pad to
  EXPECT_NEAR(slowdown(r, 64, FlashKernel::flash2), 1 / 0.9, 1e-12);
  EXPECT_NEAR(slowdown(r, 64, FlashKernel::triton), 1 / 0.9, 1e-12);  // Triton follows FlashAttention-2
  // The backward and the tile model are untouched: the same factor both ways.
  const ComputeOp bwd = attention_backward_op(shape(64, FlashKernel::fused), Dtype::bf16);
  const ComputeOp bwd128 = attention_backward_op(shape(128, FlashKernel::fused), Dtype::bf16);
  EXPECT_NEAR((r.compute_seconds(bwd) / bwd.flops) / (r.compute_seconds(bwd128) / bwd128.flops), 1 / 0.8, 1e-12);
}

// Measured rate at a head dim over the rate at 128, same backend, mask and
// length, forward + backward (configs/calibration/h200/measured).
struct MeasuredRatio {
  std::string backend;
  int head_dim = 0;
  double ratio = 0;
};

std::vector<MeasuredRatio> measured_ratios() {
  std::ifstream in(std::string(PF_CALIBRATION_DIR) + "/h200/measured/attention_runs_bf16.csv");
  EXPECT_TRUE(in.good());
  std::map<std::tuple<std::string, int, int, int>, std::pair<double, int>> sum;  // backend, causal, seq, hd
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::stringstream ss(line);
    std::string run, backend, f;
    std::getline(ss, run, ',');
    std::getline(ss, backend, ',');
    double v[8];  // causal, bs, seq, nh, nkv, hd, fwd_ms, fwd_bwd_ms
    for (double& x : v) {
      std::getline(ss, f, ',');
      x = std::stod(f);
    }
    const int causal = static_cast<int>(v[0]), seq = static_cast<int>(v[2]), hd = static_cast<int>(v[5]);
    const double ms = v[7];
    if (ms <= 0) continue;  // cuDNN refused the shape
    auto& s = sum[{backend, causal, seq, hd}];
    s.first += v[1] * v[3] * v[2] * v[2] * hd / ms;
    s.second += 1;
  }
  std::vector<MeasuredRatio> out;
  for (const auto& [k, s] : sum) {
    const auto& [backend, causal, seq, hd] = k;
    const auto ref = sum.find({backend, causal, seq, 128});
    if (hd == 128 || ref == sum.end()) continue;
    out.push_back({backend, hd, (s.first / s.second) / (ref->second.first / ref->second.second)});
  }
  return out;
}

TEST(AttentionHeadDim, ShippedHopperRatesPredictTheHeldOutHeadDims) {
  const HardwareSpec hw = config::parse_hardware(
      config::read_yaml_file(std::string(PF_SOURCE_DIR) + "/configs/hardware/h100-sxm-80gb.yaml"));
  const Roofline r(hw.gpu);
  int checked = 0;
  for (const auto& [backend, hd, ratio] : measured_ratios()) {
    if (hd != 56 && hd != 112 && hd != 144) continue;  // 64, 192 and 224 are what the rates were read from
    const FlashKernel kernel = backend == "cudnn" ? FlashKernel::fused : FlashKernel::flash2;
    const double predicted = 1 / slowdown(r, hd, kernel);
    std::printf("%s hd %d: predicted %.3f measured %.3f\n", backend.c_str(), hd, predicted, ratio);
    EXPECT_NEAR(predicted / ratio, 1.0, 0.13) << backend << " hd " << hd;
    ++checked;
  }
  EXPECT_EQ(checked, 12);
}

}  // namespace
}  // namespace pf::models
