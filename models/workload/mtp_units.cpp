// Multi-token prediction (DeepSeek-V3 technical report, section 2.2): module k
// combines the previous depth's hidden state with the embedding of token i+k,
// each normalised, projects [h; e] (2h) back to h, runs one transformer layer
// and predicts through the shared LM head. It runs on the last pipeline stage
// after the main head. The projection is kept whole on every tensor-parallel
// rank and applied to that rank's sequence shard.
#include "models/workload/layer_units.h"
#include "models/workload/param_count.h"

namespace pf::models::workload {

Unit mtp_forward_unit(const RecipeContext& c) {
  const LocalDims& d = c.d;
  std::int64_t h = d.hidden;
  bool moe = mtp_is_moe(c.model);
  UnitBuilder b(Phase::fwd, false, c.kernels);
  int lookup = b.rows(OpKind::embedding_fwd, d.tokens, h, 2, 1, {});
  int emb = lookup;
  if (c.tp()) {
    OpKind k = d.sp ? OpKind::tp_reduce_scatter : OpKind::tp_all_reduce;
    emb = b.collective(k, GroupKind::tp, c.act_bytes_tokens(), {DepRef::op(lookup)});
  }
  int emb_norm = b.rows(OpKind::norm_fwd, d.tokens_sp, h, 2, 5, {DepRef::op(emb)});
  int hid_norm = b.rows(OpKind::norm_fwd, d.tokens_sp, h, 2, 5, {DepRef::input()});
  int proj = b.gemm(OpKind::mtp_proj_fwd, d.tokens_sp, h, 2 * h, {DepRef::op(emb_norm), DepRef::op(hid_norm)});
  int attn = attention_block_fwd(b, c, DepRef::op(proj));
  int mlp = moe ? moe_block_fwd(b, c, DepRef::op(attn)) : dense_mlp_block_fwd(b, c, DepRef::op(attn));
  head_block_fwd(b, c, DepRef::op(mlp));
  Unit u = b.take();
  MtpParams p = mtp_params(c.model, d);
  u.param_elems[static_cast<int>(ParamClass::dense)] = p.dense();
  u.param_elems[static_cast<int>(ParamClass::expert)] = p.layer.expert();
  wait_for_params(u);
  return u;
}

Unit mtp_backward_unit(const RecipeContext& c) {
  const LocalDims& d = c.d;
  std::int64_t h = d.hidden;
  bool moe = mtp_is_moe(c.model);
  std::int64_t norm = arch_traits(c.model).norm_params_per_dim * h;
  UnitBuilder b(Phase::bwd, false, c.kernels);
  // The head is shared: its weight gradient is counted with the main head.
  int head = head_block_bwd(b, c, 0);
  int mlp = moe ? moe_block_bwd(b, c, DepRef::op(head)) : dense_mlp_block_bwd(b, c, DepRef::op(head));
  int attn = attention_block_bwd(b, c, DepRef::op(mlp));
  int dproj = b.gemm(OpKind::mtp_proj_dgrad, d.tokens_sp, 2 * h, h, {DepRef::op(attn)});
  b.gemm(OpKind::mtp_proj_wgrad, 2 * h, h, d.tokens_sp, {DepRef::op(attn)}, 2 * h * h);
  b.rows(OpKind::norm_bwd, d.tokens_sp, h, 3, 8, {DepRef::op(dproj)}, norm);
  int emb_norm = b.rows(OpKind::norm_bwd, d.tokens_sp, h, 3, 8, {DepRef::op(dproj)}, norm);
  DepRef grad = DepRef::op(emb_norm);
  if (d.sp) grad = DepRef::op(b.collective(OpKind::tp_all_gather, GroupKind::tp, c.act_bytes_tokens(), {grad}));
  // Into the shared embedding table (or its last-stage copy, counted with the head).
  b.rows(OpKind::embedding_bwd, d.tokens, h, 3, 1, {grad});
  Unit u = b.take();
  MtpParams p = mtp_params(c.model, d);
  u.param_elems[static_cast<int>(ParamClass::dense)] = p.dense();
  u.param_elems[static_cast<int>(ParamClass::expert)] = p.layer.expert();
  wait_for_params(u);
  return u;
}

}  // namespace pf::models::workload
