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
      // Bottom-right mask: query row i sees skv - sq + i + 1 keys; the
      // tile's last row sees the most, and the kernel stops after its tile.
      const std::int64_t seen_by_last = std::clamp<std::int64_t>(skv - sq + first + rows, 0, skv);
      tiles = (seen_by_last + tile - 1) / tile;
      const std::int64_t seen_by_first = skv - sq + first + 1;
      if (seen_by_first >= 0 && seen_by_first + rows - 1 <= skv) {
        pairs += static_cast<double>(rows) * static_cast<double>(seen_by_first) +
                 static_cast<double>(rows) * static_cast<double>(rows - 1) / 2.0;
      } else {
        for (std::int64_t i = first; i < first + rows; ++i) {
          pairs += static_cast<double>(std::clamp<std::int64_t>(skv - sq + i + 1, 0, skv));
        }
      }
    } else {
      pairs += static_cast<double>(rows) * static_cast<double>(skv);
    }
    work += static_cast<double>(rows) * (static_cast<double>(tiles * tile) + kv_overhead);
  }
  return work > 0 ? pairs / work : 1.0;
}

}  // namespace pf::models
