// Shared test fixtures: the GH200 as a GpuSpec, and its measured kernel tables.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/compute/calibration_table.h"
#include "models/spec/hardware_spec.h"

namespace pf::models::test {

// NVIDIA GH200 Grace Hopper Superchip datasheet (H100 GPU, 96 GB HBM3): dense
// tensor-core FP16/BF16 989 TFLOPS, FP8 1,979, TF32 494, FP32 (CUDA cores) 67;
// HBM3 bandwidth 4 TB/s. Efficiencies are OpEfficiency's defaults.
inline GpuSpec gh200() {
  GpuSpec gpu;
  gpu.name = "GH200";
  gpu.peak_tflops = {{Dtype::fp16, 989}, {Dtype::bf16, 989}, {Dtype::fp8, 1979}, {Dtype::tf32, 494}, {Dtype::fp32, 67}};
  gpu.memory_gb = 96;
  gpu.memory_bandwidth_gbps = 4000;
  return gpu;
}

inline std::string calibration_dir() { return PF_CALIBRATION_DIR; }

// Loads one GH200 table, failing the test (not skipping it) when the shared
// data is missing: CI must not pass silently without the measurements.
inline CalibrationTable gh200_table(const std::string& file) {
  const std::string path = calibration_dir() + "/gh200/" + file;
  if (!std::filesystem::exists(path)) {
    ADD_FAILURE() << "missing calibration data " << path << " (configs/calibration in the repository)";
    throw std::runtime_error("missing " + path);
  }
  return read_calibration_csv(path);
}

// A random split of a table's rows, fixed by `seed`. Fisher-Yates on
// mt19937_64, whose output the C++ standard fixes, so every platform agrees.
inline std::pair<CalibrationTable, CalibrationTable> split(const CalibrationTable& table, double train_fraction,
                                                           std::uint64_t seed) {
  std::vector<std::size_t> order(table.rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937_64 rng(seed);
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
  CalibrationTable train = table, held_out = table;
  train.rows.clear();
  held_out.rows.clear();
  const auto n_train = static_cast<std::size_t>(train_fraction * static_cast<double>(order.size()));
  for (std::size_t i = 0; i < order.size(); ++i) (i < n_train ? train : held_out).rows.push_back(table.rows[order[i]]);
  return {train, held_out};
}

}  // namespace pf::models::test
