// Transformer Engine's pipelined GEMM + reduce-scatter under TP communication
// overlap (training.tp_comm_overlap): the row-parallel GEMMs of the forward
// (attention projection and fc2, TE's `proj_fprop` and `fc2_fprop`) run in
// kTpOverlapRsChunks chunks of their rows, and each chunk's reduce-scatter
// follows it on the communication stream while the next chunk computes
// (TE `CommOverlapBase::split_overlap_rs`). The last chunk's reduce-scatter
// has no GEMM left to hide behind: the layer's residual add waits for it.
//
// Chunks: the "pipeline" method's num_splits, 4 in TE's default userbuffers
// configuration (`initialize_ub` get_default_config, what Megatron-LM's
// --tp-comm-overlap runs without a config file) and in every
// PipelineOverlapCfg preset of Megatron-Bridge 0.2.0
// (`src/megatron/bridge/training/comm_overlap.py`). Its fp8 presets
// reduce-scatter by ring exchange instead (tp chunks and a final reduction
// kernel), left at the same quarter here.
#include "models/workload/layer_units.h"

namespace pf::models::workload {

int pipelined_reduce_scatter(UnitBuilder& b, const RecipeContext& c, int gemm_input, int gemm) {
  const std::int64_t bytes = c.act_bytes_tokens();
  const std::int64_t tail = bytes / kTpOverlapRsChunks;
  // The first chunks' reduce-scatters, from the GEMM's start (each one its chunk behind).
  const int overlapped =
      b.collective(OpKind::tp_reduce_scatter, GroupKind::tp, bytes - tail, {DepRef::op(gemm_input)});
  // The last chunk's, after the GEMM and the chunks before it on the same stream.
  return b.collective(OpKind::tp_reduce_scatter, GroupKind::tp, tail, {DepRef::op(gemm), DepRef::op(overlapped)});
}

}  // namespace pf::models::workload
