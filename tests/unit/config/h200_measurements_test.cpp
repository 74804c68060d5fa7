// The Hopper presets against kernels timed on an H200 (configs/calibration/h200,
// scripts/measure_kernels.py): attention forward and backward, the GEMM model's
// shape terms, and the sustained clock between the two regimes measured.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "io/config/hardware_parser.h"
#include "io/config/yaml_reader.h"
#include "models/compute/calibration_table.h"
#include "models/compute/compute_op.h"
#include "models/compute/csv_fields.h"
#include "models/compute/gemm_fit.h"
#include "models/compute/roofline.h"

namespace pf::config {
namespace {

namespace fs = std::filesystem;
using models::AttentionShape;
using models::FlashKernel;

fs::path calibration() { return fs::path(PF_SOURCE_ROOT) / "configs" / "calibration" / "h200"; }

models::HardwareSpec h200() {
  const fs::path file = fs::path(PF_SOURCE_ROOT) / "configs" / "hardware" / "h200-sxm-141gb.yaml";
  return parse_hardware(read_yaml_file(file.string(), "hardware"));
}

// Comma-separated rows of a measured file (split as the calibration reader
// splits them) with a header line; fails the test
// (not skips it) when the file is missing.
std::vector<std::map<std::string, std::string>> read_rows(const fs::path& file) {
  std::ifstream in(file);
  if (!in) {
    ADD_FAILURE() << "missing measured data " << file;
    return {};
  }
  std::vector<std::string> header;
  std::vector<std::map<std::string, std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> fields;
    for (std::string_view f : models::split_csv_line(line)) fields.emplace_back(f);
    if (header.empty()) {
      header = fields;
      continue;
    }
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < header.size() && i < fields.size(); ++i) row[header[i]] = fields[i];
    rows.push_back(row);
  }
  return rows;
}

// Mean SM clock (MHz) nvidia-smi logged during one section of the second run.
double mean_clock_mhz(const std::string& section) {
  double sum = 0;
  int n = 0;
  for (const auto& row : read_rows(calibration() / "measured" / "smi_run2.csv")) {
    if (row.at("section") != section) continue;
    sum += std::stod(row.at("sm_clock"));  // "1455 MHz": stod stops at the space
    ++n;
  }
  return n > 0 ? sum / n : 0;
}

// The clock the BF16 peak is quoted at (H100 whitepaper: 989.4 TFLOP/s =
// 132 SMs x 4096 FLOP/clock x 1.83 GHz).
constexpr double kQuotedClockMhz = 1830;

struct SignedErrors {
  std::vector<double> e;  // predicted / measured - 1
  double median() const {
    std::vector<double> v = e;
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
  }
  double median_abs() const {
    std::vector<double> v;
    for (double x : e) v.push_back(std::abs(x));
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
  }
};

struct AttentionErrors {
  SignedErrors forward, backward;
};

// The preset's attention model against every measured shape of one backend
// whose forward takes >= 100 us (shorter ones carry launch time the model
// leaves to the host model), at the clock the kernels ran at.
AttentionErrors attention_errors(models::GpuSpec gpu, const std::string& backend, FlashKernel kernel) {
  gpu.sustained_clock = mean_clock_mhz("attention") / kQuotedClockMhz;
  const models::Roofline roofline(gpu);
  AttentionErrors out;
  for (const auto& row : read_rows(calibration() / "measured" / "attention_runs_bf16.csv")) {
    if (row.at("backend") != backend) continue;
    const double fwd_ms = std::stod(row.at("fwd_ms")), fwd_bwd_ms = std::stod(row.at("fwd_bwd_ms"));
    const std::int64_t hd = std::stoll(row.at("hd"));
    if (fwd_ms < 0.1 || fwd_bwd_ms <= fwd_ms || hd % 8 != 0) continue;
    AttentionShape s;
    s.batch = std::stoll(row.at("bs"));
    s.seq_q = s.seq_kv = std::stoll(row.at("seq"));
    s.heads = std::stoll(row.at("nh"));
    s.kv_heads = std::stoll(row.at("nkv"));
    s.head_dim = hd;
    s.causal = row.at("causal") == "1";
    s.kernel = kernel;
    const double fwd = roofline.seconds(models::attention_op(s, models::Dtype::bf16));
    const double bwd = roofline.seconds(models::attention_backward_op(s, models::Dtype::bf16));
    out.forward.e.push_back(fwd / (fwd_ms * 1e-3) - 1);
    out.backward.e.push_back(bwd / ((fwd_bwd_ms - fwd_ms) * 1e-3) - 1);
  }
  return out;
}

void print(const std::string& what, const SignedErrors& s) {
  std::cout << what << ": " << s.e.size() << " shapes, median |err| " << 100 * s.median_abs() << "%, median signed "
            << 100 * s.median() << "%\n";
}

// cuDNN fused attention is what Transformer Engine runs on Hopper (the preset's
// `flash`); FlashAttention-2 is `flash2`. Forward and backward each within
// 12 % at the median and unbiased to 6 %: the backward's own rate
// (efficiency.attention_backward) is what makes the second hold.
TEST(H200Measurements, PresetAttentionMatchesMeasuredForwardAndBackward) {
  const models::GpuSpec gpu = h200().gpu;
  for (const auto& [backend, kernel] : {std::pair{std::string("cudnn"), FlashKernel::fused},
                                        std::pair{std::string("flash"), FlashKernel::flash2}}) {
    const AttentionErrors e = attention_errors(gpu, backend, kernel);
    print(backend + " forward", e.forward);
    print(backend + " backward", e.backward);
    ASSERT_GT(e.forward.e.size(), 200u) << backend;
    EXPECT_LE(e.forward.median_abs(), 0.12) << backend;
    EXPECT_LE(e.backward.median_abs(), 0.12) << backend;
    EXPECT_LE(std::abs(e.forward.median()), 0.06) << backend;
    EXPECT_LE(std::abs(e.backward.median()), 0.06) << backend;
  }
  // Priced at the forward's rate, the backward is too fast by more than 12 %.
  models::GpuSpec same_rate = gpu;
  same_rate.efficiency.attention_backward = 1.0;
  const AttentionErrors e = attention_errors(same_rate, "cudnn", FlashKernel::fused);
  EXPECT_LT(e.backward.median(), -0.12);
}

// The preset's shape terms describe the H200's training GEMMs once fitted:
// fitted on a random half of the 900 measured GEMMs, the other half within the
// issue's targets (median 8 %, p90 20 % on kernels >= 20 us), unbiased.
TEST(H200Measurements, GemmModelFitsTheMeasuredTrainingShapesOnAHeldOutHalf) {
  const models::CalibrationTable table = models::read_calibration_csv((calibration() / "gemm_bf16.csv").string());
  ASSERT_EQ(table.rows.size(), 900u);
  const models::RowSplit split = models::split_rows(table.rows, 0.5, 20261204);
  models::GpuSpec start = h200().gpu;
  const models::GpuSpec fitted = models::fit_gemm_model(start, split.fit);
  std::vector<models::Measurement> long_rows;
  for (const models::Measurement& m : split.held_out) {
    if (m.seconds >= 20e-6) long_rows.push_back(m);
  }
  const models::GemmFitError e = models::gemm_model_error(fitted, long_rows);
  std::cout << "H200 GEMM model, held-out half (" << e.rows << " rows): median " << 100 * e.median << "%, p90 "
            << 100 * e.p90 << "%, median signed " << 100 * e.median_signed << "%\n";
  EXPECT_GT(e.rows, 400);
  EXPECT_LE(e.median, 0.08);
  EXPECT_LE(e.p90, 0.20);
  EXPECT_LT(std::abs(e.median_signed), 0.03);
}

// A training step's GEMMs run between two measured regimes: back-to-back GEMMs
// at the 700 W cap (the GEMM table's section) and a decoder layer's mix of
// GEMMs, attention and memory-bound kernels (the layer section). The preset's
// sustained clock must lie between their mean clocks.
TEST(H200Measurements, SustainedClockLiesBetweenTheMeasuredGemmAndLayerClocks) {
  const double gemm = mean_clock_mhz("gemm") / kQuotedClockMhz;
  const double layer = mean_clock_mhz("layer") / kQuotedClockMhz;
  std::cout << "SM clock / 1830 MHz: back-to-back GEMMs " << gemm << ", decoder-layer mix " << layer << "\n";
  ASSERT_GT(gemm, 0.5);
  ASSERT_LT(gemm, layer);
  const double preset = h200().gpu.sustained_clock;
  EXPECT_GE(preset, gemm);
  EXPECT_LE(preset, layer);
}

// Each decoder layer of the layer section run back to back for 12 s, in
// windows of ten iterations timed by CUDA events: the spread of a window's
// iteration time once the first third (the warm-up, clocks still settling)
// is left out. The preset's speed_fluctuation is their median; every layer
// swings more than the one GEMM run back to back (its clock holds steady at
// the power cap), so the swing is the mix's, not the timer's.
double steady_spread(const std::vector<double>& x) {
  const std::vector<double> steady(x.begin() + static_cast<std::ptrdiff_t>(x.size() / 3), x.end());
  double mean = 0, sq = 0;
  for (double v : steady) mean += v;
  mean /= static_cast<double>(steady.size());
  for (double v : steady) sq += (v - mean) * (v - mean);
  return std::sqrt(sq / static_cast<double>(steady.size())) / mean;
}

TEST(H200Measurements, SpeedFluctuationIsTheMedianSpreadOfLayersBackToBack) {
  std::map<std::string, std::vector<double>> windows;
  for (const auto& row : read_rows(calibration() / "measured" / "layer_sustained.csv"))
    windows[row.at("config")].push_back(std::stod(row.at("iter_ms")));
  std::vector<double> spreads;
  for (const auto& [config, x] : windows) {
    ASSERT_GE(x.size(), 30u) << config;
    spreads.push_back(steady_spread(x));
    std::cout << config << ": " << x.size() << " windows, spread " << 100 * spreads.back() << " %\n";
  }
  ASSERT_EQ(spreads.size(), 3u);
  std::sort(spreads.begin(), spreads.end());
  std::vector<double> gemm;
  for (const auto& row : read_rows(calibration() / "measured" / "sustained_gemm.csv")) gemm.push_back(std::stod(row.at("tflops")));
  ASSERT_GE(gemm.size(), 30u);
  EXPECT_LT(steady_spread(gemm), spreads.front());
  const double preset = h200().gpu.speed_fluctuation;
  EXPECT_NEAR(preset, spreads[1], 0.001);
  EXPECT_GE(preset, spreads.front());
  EXPECT_LE(preset, spreads.back());
}

}  // namespace
}  // namespace pf::config
