// Flash attention by shape (models/compute/attention_tiles.h): the fixed work
// per query tile and whole causal tiles, by hand; and the fall-off with the
// key count against two independent measurements: the H100 FlashAttention-3
// forward benchmark it was fitted on, and the GH200 FlashAttention-2 table.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "models/compute/attention_tiles.h"
#include "models/compute/roofline.h"
#include "tests/unit/compute/gh200.h"

namespace pf::models {
namespace {

AttentionShape shape(std::int64_t seq_q, std::int64_t seq_kv, bool causal) {
  AttentionShape s;
  s.batch = 1;
  s.heads = 16;
  s.kv_heads = 16;
  s.head_dim = 128;
  s.seq_q = seq_q;
  s.seq_kv = seq_kv;
  s.causal = causal;
  return s;
}

TEST(AttentionTiles, FullTilesWithoutOverheadLoseNothing) {
  EXPECT_DOUBLE_EQ(attention_tile_utilisation(shape(4096, 4096, false), 0), 1.0);
  EXPECT_DOUBLE_EQ(attention_tile_utilisation(shape(128, 8192, false), 0), 1.0);
}

TEST(AttentionTiles, FixedWorkPerQueryTile) {
  for (std::int64_t s : {512, 2048, 16384}) {
    EXPECT_DOUBLE_EQ(attention_tile_utilisation(shape(s, s, false), 236), s / (s + 236.0));
  }
  // A partial key tile is computed whole: 200 keys cost two 128-key tiles.
  EXPECT_DOUBLE_EQ(attention_tile_utilisation(shape(256, 200, false), 0), 200.0 / 256.0);
}

// Causal, s = q = kv a multiple of the tile T: query tile j computes j + 1
// key tiles (the diagonal one whole), sum (j + 1) T^2 over s/T tiles =
// s (s + T) / 2 pairs of work against s (s + 1) / 2 unmasked pairs.
TEST(AttentionTiles, CausalDiagonalTilesAreComputedWhole) {
  const double t = kAttentionTile;
  for (std::int64_t s : {1024, 2048, 8192}) {
    const double d = static_cast<double>(s);
    EXPECT_NEAR(attention_tile_utilisation(shape(s, s, true), 0), (d + 1) / (d + t), 1e-12);
    // With the fixed work as well: s (s+1)/2 over s (s + T)/2 + s k0.
    EXPECT_NEAR(attention_tile_utilisation(shape(s, s, true), 236), (d + 1) / (d + t + 2 * 236), 1e-12);
  }
}

// A sliding window, against a kernel counted one key tile at a time: each
// query tile computes every key tile holding a pair it may see (the band is
// contiguous, so FlashAttention's n_block_min .. n_block_max), whole, plus the
// fixed work per query tile.
double brute_force_window_utilisation(std::int64_t s, std::int64_t window, double kv_overhead) {
  const std::int64_t t = kAttentionTile;
  double pairs = 0, work = 0;
  for (std::int64_t first = 0; first < s; first += t) {
    const std::int64_t rows = std::min(t, s - first);
    std::int64_t tiles = 0;
    for (std::int64_t key_tile = 0; key_tile * t < s; ++key_tile) {
      bool any = false;
      for (std::int64_t i = first; i < first + rows; ++i) {
        for (std::int64_t j = key_tile * t; j < std::min(s, key_tile * t + t); ++j) {
          const bool seen = j <= i && j >= i - window;
          pairs += seen ? 1 : 0;
          any = any || seen;
        }
      }
      tiles += any ? 1 : 0;
    }
    work += static_cast<double>(rows) * (static_cast<double>(tiles * t) + kv_overhead);
  }
  return pairs / work;
}

TEST(AttentionTiles, SlidingWindowComputesOnlyTheBandsTiles) {
  for (std::int64_t s : {300, 1024}) {
    for (std::int64_t w : {1, 100, 128, 129, 512}) {
      AttentionShape a = shape(s, s, true);
      a.window = w;
      for (double k0 : {0.0, 236.0}) {
        EXPECT_NEAR(attention_tile_utilisation(a, k0), brute_force_window_utilisation(s, w, k0), 1e-12)
            << "s " << s << " window " << w << " kv_overhead " << k0;
      }
    }
  }
  // Far from the sequence's start a 128-row query tile with a window of 128
  // computes two key tiles for 129 keys a row: about 129 / 256 of its work.
  AttentionShape a = shape(65536, 65536, true);
  a.window = kAttentionTile;
  EXPECT_NEAR(attention_tile_utilisation(a, 0), 129.0 / 256.0, 0.002);
}

// The fit's own data: FlashAttention-3 forward, head_dim 128, batch x seq =
// 16k, H100 (pytorch/benchmark ff65cb67): the rate relative to 16k keys,
// predicted by s / (s + 236), within 1.5 % at every length.
TEST(AttentionTiles, ReproducesTheH100FlashAttention3Benchmark) {
  const std::map<std::int64_t, double> tflops{{512, 430.32}, {1024, 517.099}, {2048, 565.544},
                                              {4096, 590.233}, {8192, 614.234}, {16384, 620.73}};
  const double top = attention_tile_utilisation(shape(16384, 16384, false), 236);
  for (const auto& [s, measured] : tflops) {
    const double predicted = attention_tile_utilisation(shape(s, s, false), 236) / top;
    EXPECT_NEAR(predicted, measured / tflops.at(16384), 0.015) << s << " keys";
  }
}

// Held out: the GH200 FlashAttention-2 forward table (SDPA flash, non-causal,
// head_dim 128, kernels of at least 50 us): the median rate at each key count
// relative to 16k keys, predicted within 6 % from 512 keys up.
TEST(AttentionTiles, FollowsTheGh200FlashAttention2Table) {
  const CalibrationTable table = test::gh200_table("attention_fp16.csv");
  std::map<std::int64_t, std::vector<double>> rate;
  for (const Measurement& m : table.rows) {
    const AttentionShape& a = m.op.attn;
    if (a.head_dim != 128 || a.causal || m.seconds < 50e-6) continue;
    rate[a.seq_kv].push_back(m.op.flops / m.seconds);
  }
  auto median = [](std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
    return v[v.size() / 2];
  };
  ASSERT_TRUE(rate.count(16384) && rate.count(512));
  const double top_measured = median(rate.at(16384));
  const double top_predicted = attention_tile_utilisation(shape(16384, 16384, false), 236);
  int checked = 0;
  for (std::int64_t s : {512, 1024, 2048, 4096, 8192, 32768}) {
    if (!rate.count(s) || rate.at(s).size() < 10) continue;
    const double measured = median(rate.at(s)) / top_measured;
    const double predicted = attention_tile_utilisation(shape(s, s, false), 236) / top_predicted;
    EXPECT_NEAR(predicted / measured, 1.0, 0.06) << s << " keys: measured " << measured << ", predicted " << predicted;
    ++checked;
  }
  EXPECT_GE(checked, 5);
}

// The roofline applies it to attention only, on top of the long-sequence
// rate, and not at all with attention_kv_overhead 0 (the switch).
TEST(AttentionTiles, RooflineSlowsShortAndCausalAttention) {
  GpuSpec gpu = test::gh200();
  gpu.efficiency.attention_kv_overhead = 236;
  const Roofline shaped(gpu);
  gpu.efficiency.attention_kv_overhead = 0;
  const Roofline flat(gpu);
  const ComputeOp op = attention_op(shape(2048, 2048, true), Dtype::bf16);
  const double ratio = shaped.compute_seconds(op) / flat.compute_seconds(op);
  EXPECT_NEAR(ratio, (2048.0 + 128 + 2 * 236) / 2049.0, 1e-12);
  const ComputeOp gemm = gemm_op({4096, 4096, 4096, 1}, Dtype::bf16);
  EXPECT_DOUBLE_EQ(shaped.compute_seconds(gemm), flat.compute_seconds(gemm));
}

}  // namespace
}  // namespace pf::models
