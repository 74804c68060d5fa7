// A column-parallel GEMM that reads a sequence-parallel all-gather (QKV and
// fc1 forward, the attention projection's and fc2's input gradients). Under
// TP communication overlap Transformer Engine streams the gather in by its
// userbuffers ring exchange: the shards move on the copy engines (no SMs
// taken from the compute beside them) and the GEMM runs shard by shard from
// the local one (UnitBuilder::ring_exchange_gemm); what reads its output waits
// for the whole gather (the callers' also_wait or extra dependency).
// Otherwise the GEMM follows the gather.
#include "models/workload/layer_units.h"

namespace pf::models::workload {

int gathered_gemm(UnitBuilder& b, const RecipeContext& c, OpKind kind, DepRef local, DepRef gathered, std::int64_t M,
                  std::int64_t N, std::int64_t K) {
  if (!c.tp_overlap()) return b.gemm(kind, M, N, K, {gathered});
  b.set_copy_engine(gathered.index);
  return b.ring_exchange_gemm(kind, c.d.tp, M, N, K, {local});
}

}  // namespace pf::models::workload
