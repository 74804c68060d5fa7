#include "models/compute/attention_tiles.h"

#include <algorithm>

namespace pf::models {

double attention_tile_utilisation(const AttentionShape& shape, double kv_overhead) {
  const std::int64_t sq = shape.seq_q, skv = shape.seq_kv, tile = kAttentionTile;
  if (sq <= 0 || skv <= 0) return 1.0;
  const std::int64_t kv_tiles = (skv + tile - 1) / tile;
  double pairs = 0, work = 0;
  for (std::int64_t first = 0; first < sq; first += tile) {
    const std::int64_t rows = std::min(tile, sq - first);
    std::int64_t tiles = kv_tiles;
    if (shape.causal) {
      // Bottom-right mask: query row i has its diagonal at key skv - sq + i;
      // the kernel stops after the tile holding the last row's diagonal and,
      // with a window, starts at the tile holding the first row's earliest
      // key (FlashAttention's n_block_min / n_block_max for local attention).
      const std::int64_t diagonal = skv - sq + first;
      const std::int64_t end = std::clamp<std::int64_t>(diagonal + rows, 0, skv);
      const std::int64_t begin =
          shape.window > 0 ? std::clamp<std::int64_t>(diagonal - shape.window, 0, skv) : 0;
      tiles = (end + tile - 1) / tile - begin / tile;
      pairs += causal_band_pairs(diagonal, diagonal + rows, shape.window);
    } else {
      pairs += static_cast<double>(rows) * static_cast<double>(skv);
    }
    work += static_cast<double>(rows) * (static_cast<double>(tiles * tile) + kv_overhead);
  }
  return work > 0 ? pairs / work : 1.0;
}

}  // namespace pf::models
