// How much of a fused (flash) attention kernel's time goes to useful score
// pairs, by shape.
//
// FlashAttention-2/3 give each tile of `kAttentionTile` query rows to a
// thread block, which streams the key/value tiles that query tile can see
// and then rescales and writes its output. Two things cost time beyond the
// pairs the FLOP count holds:
//  - a fixed amount of work per query tile (loading Q, the final softmax
//    rescale, writing O and its log-sum-exp), `kv_overhead` key columns'
//    worth: a kernel over s keys runs at s / (s + kv_overhead) of its
//    long-sequence rate;
//  - under a causal mask, whole tiles: the tile on the diagonal is computed
//    in full and half of it masked away; under a sliding window likewise the
//    tile holding its far edge.
// Fitted on the H100 FlashAttention-3 forward benchmark in pytorch/benchmark
// (commit ff65cb67: head_dim 128, batch x seq = 16k, 430 TFLOP/s at 512 keys
// to 621 at 16k), which gives kv_overhead ~236; the measured GH200
// FlashAttention-2 forward table (configs/calibration/gh200) falls off
// alike (0.213 -> 0.31 of peak from 512 to 32k keys at head_dim 128).
// models/compute/README.md, "Attention".
#pragma once

#include "models/compute/compute_op.h"

namespace pf::models {

// Query and key/value tile edge of the flash kernels (FlashAttention-2/3 use
// 128-row query tiles at head_dim 128 on Ampere and Hopper).
inline constexpr int kAttentionTile = 128;

// Score pairs the op's FLOP count holds over the pairs' worth of work its
// tiles do: 1 for kv_overhead 0 and no partial tiles; < 1 otherwise.
double attention_tile_utilisation(const AttentionShape& shape, double kv_overhead);

}  // namespace pf::models
