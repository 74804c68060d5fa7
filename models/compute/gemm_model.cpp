#include "models/compute/gemm_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace pf::models {
namespace {

double d(std::int64_t v) { return static_cast<double>(v); }

double ceil_div(double a, double b) { return std::ceil(a / b); }

int byte_alignment(std::int64_t elements, double element_bytes) {
  // Largest power of two (capped at 16) dividing the row's size in bytes.
  const auto bytes = static_cast<std::int64_t>(d(elements) * element_bytes);
  int a = 1;
  while (a < 16 && bytes % (2 * a) == 0) a *= 2;
  return a;
}

// Largest tile area of kGemmTiles: the tile the large-GEMM efficiency refers to.
constexpr double kReferenceTileArea = 256.0 * 128.0;

}  // namespace

GemmAlignment gemm_alignment(const GemmShape& s, Dtype dtype) {
  const double e = dtype_bytes(dtype);
  const int a = std::min(byte_alignment(s.n, e), byte_alignment(s.k, e));
  if (a >= 16) return GemmAlignment::aligned;
  if (a >= 4) return GemmAlignment::unaligned;
  return GemmAlignment::odd;
}

GemmModelParams gemm_model_params(const GpuSpec& gpu, double peak_flops, Dtype dtype) {
  const GemmModelSpec& g = gpu.gemm_model;
  GemmModelParams p;
  p.sm_count = gpu.sm_count;
  p.peak_flops = peak_flops;
  p.bandwidth = gpu.memory_bandwidth_gbps * 1e9;
  const bool fp8 = dtype == Dtype::fp8 && gpu.efficiency.gemm_fp8 > 0;
  p.efficiency[static_cast<int>(GemmAlignment::aligned)] = fp8 ? gpu.efficiency.gemm_fp8 : gpu.efficiency.gemm;
  p.efficiency[static_cast<int>(GemmAlignment::unaligned)] = g.unaligned_efficiency;
  p.efficiency[static_cast<int>(GemmAlignment::odd)] = g.odd_efficiency;
  p.memory_efficiency[static_cast<int>(GemmAlignment::aligned)] = g.memory_efficiency;
  p.memory_efficiency[static_cast<int>(GemmAlignment::unaligned)] = g.unaligned_memory_efficiency;
  p.memory_efficiency[static_cast<int>(GemmAlignment::odd)] = g.odd_memory_efficiency;
  p.k_overhead = g.k_overhead;
  p.tile_exponent = g.tile_exponent;
  p.fixed_seconds = g.fixed_us * 1e-6;
  for (int i = 0; i < kGemmTileCount; ++i) {
    p.tile_scale[i] = std::pow(d(kGemmTiles[i].m) * d(kGemmTiles[i].n) / kReferenceTileArea, p.tile_exponent);
  }
  return p;
}

double gemm_model_seconds(const GemmModelParams& p, const GemmShape& s, Dtype dtype) {
  const int a = static_cast<int>(gemm_alignment(s, dtype));
  const double rate = p.efficiency[a] * p.peak_flops;
  const double stream = p.bandwidth * p.memory_efficiency[a];
  const double m = d(s.m), n = d(s.n), k = d(s.k), b = d(s.batch);
  const double e = dtype_bytes(dtype);
  const double memory = (e * b * (m * k + k * n) + gemm_output_bytes(s, dtype)) / stream;

  double compute = std::numeric_limits<double>::infinity();
  const double sms = d(std::max(p.sm_count, 1));
  for (int i = 0; i < kGemmTileCount; ++i) {
    const GemmTile& t = kGemmTiles[i];
    const double area = d(t.m) * d(t.n);
    const double tile_rate = rate * p.tile_scale[i] / sms;
    const double output_tiles = b * ceil_div(m, t.m) * ceil_div(n, t.n);
    for (const int split : kGemmSplits) {
      const double waves = ceil_div(output_tiles * split, sms);
      double c = waves * 2.0 * area * (ceil_div(k, split) + p.k_overhead) / tile_rate;
      if (split > 1) c += 4.0 * b * m * n * split / stream;  // fp32 partial sums written, then reduced
      compute = std::min(compute, c);
    }
  }
  return std::max(compute, memory) + p.fixed_seconds;
}

}  // namespace pf::models
