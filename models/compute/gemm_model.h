// Time of one GEMM kernel as a function of its shape (models/compute/README.md):
// how cuBLAS/CUTLASS-style kernels cut C[M,N] into output tiles, run them in
// waves over the GPU's SMs, and fall short of the large-GEMM rate when tiles
// are small, K is short, operands are misaligned or the kernel is bound by
// HBM.
//
// For every candidate tile (tm × tn) and split-K factor s:
//
//   tiles   = b · ⌈M/tm⌉ · ⌈N/tn⌉ · s
//   waves   = ⌈tiles / SMs⌉
//   compute = waves · 2·tm·tn·(⌈K/s⌉ + k_overhead) / (e_a · (tm·tn / 256·128)^γ · peak / SMs)
//           + (s > 1: s·M·N fp32 partial sums written and reduced at the memory rate)
//
// and the kernel takes
//
//   t = max( min over candidates of compute,  bytes(A,B,C) / (bandwidth · m_a) ) + fixed
//
// e_a and m_a depend on the operands' alignment a (bytes shared by the leading
// dimensions N and K): 16-byte aligned → efficiency.gemm and
// gemm.memory_efficiency; 4- or 8-byte → gemm.unaligned_*; 2-byte → gemm.odd_*.
// cuBLAS picks kernels by alignment (vectorised 16-byte loads, TMA on Hopper),
// which is why misaligned shapes run several times slower at equal size.
//
// Every term is non-decreasing in M, N, K and b, and the minimum of
// non-decreasing functions is non-decreasing: a GEMM never gets faster when a
// dimension grows. Wave quantisation shows as steps of one wave's time each
// time the tile count crosses a multiple of the SM count.
//
// Deterministic, allocation-free: 6 tiles × 5 splits evaluated per call (the
// cost model memoises results per shape).
#pragma once

#include "models/compute/compute_op.h"
#include "models/spec/hardware_spec.h"

namespace pf::models {

// Output tile shapes tried, from the Hopper/Ampere CUTLASS GEMM defaults
// (128×256, 256×128, 128×128 and the 64-wide tiles used for small problems).
inline constexpr int kGemmTileCount = 6;
struct GemmTile {
  int m;
  int n;
};
inline constexpr GemmTile kGemmTiles[kGemmTileCount] = {{256, 128}, {128, 256}, {128, 128},
                                                        {128, 64},  {64, 128},  {64, 64}};
inline constexpr int kGemmSplitCount = 5;
inline constexpr int kGemmSplits[kGemmSplitCount] = {1, 2, 4, 8, 16};

enum class GemmAlignment : std::uint8_t { odd = 0, unaligned = 1, aligned = 2 };

// Alignment class of C = A·B for row-major A[M,K], B[K,N]: the smaller of the
// byte alignments of N and K (elements × dtype size), 16 bytes or more = aligned.
GemmAlignment gemm_alignment(const GemmShape& shape, Dtype dtype);

struct GemmModelParams {
  int sm_count = 0;
  double peak_flops = 0;            // tensor-core FLOP/s of the dtype
  double bandwidth = 0;             // HBM bytes/s
  double efficiency[3] = {0, 0, 0};         // per GemmAlignment, fraction of peak
  double memory_efficiency[3] = {0, 0, 0};  // per GemmAlignment, fraction of bandwidth
  double k_overhead = 0;
  double tile_exponent = 0;
  double fixed_seconds = 0;
  double tile_scale[kGemmTileCount] = {};  // (area / 256·128)^tile_exponent, precomputed
};

// The parameters for one dtype from a hardware file (peak from gpu.peak_tflops,
// large efficiency from gpu.efficiency.gemm, the rest from gpu.gemm).
// gpu.efficiency.gemm_fp8, when set, replaces efficiency.gemm for fp8.
GemmModelParams gemm_model_params(const GpuSpec& gpu, double peak_flops, Dtype dtype = Dtype::bf16);

// Kernel time in seconds; the shape must be positive in every dimension.
double gemm_model_seconds(const GemmModelParams& p, const GemmShape& shape, Dtype dtype);

}  // namespace pf::models
