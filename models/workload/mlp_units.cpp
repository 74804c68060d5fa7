// Dense MLP (also the shared experts of a MoE layer): fc1, activation, fc2.
#include "models/workload/layer_units.h"

namespace pf::models::workload {

int mlp_core_fwd(UnitBuilder& b, const RecipeContext& c, DepRef normed, const MlpWidths& w) {
  const LocalDims& d = c.d;
  std::int64_t h = d.hidden;
  DepRef src = normed;
  if (d.sp) src = DepRef::op(b.collective(OpKind::tp_all_gather, GroupKind::tp, c.gather_bytes_tokens(), {normed}));
  // With TP comm overlap (attention_units.cpp) fc1 starts while the gather streams in.
  const bool overlap = c.tp_overlap();
  int fc1 = gathered_gemm(b, c, OpKind::mlp_fc1_fwd, normed, src, d.tokens, w.fc1_local, h);
  // GeLU reads and writes ffn; SwiGLU reads gate and up (2 ffn) and writes ffn.
  double act_tensors = c.arch.gated_mlp ? 3 : 2;
  int act = overlap ? b.rows(OpKind::mlp_act_fwd, d.tokens, w.ffn_local, act_tensors, 8, {DepRef::op(fc1), src})
                    : b.rows(OpKind::mlp_act_fwd, d.tokens, w.ffn_local, act_tensors, 8, {DepRef::op(fc1)});
  int fc2 = b.gemm(OpKind::mlp_fc2_fwd, d.tokens, h, w.ffn_local, {DepRef::op(act)});
  if (!c.tp()) return fc2;
  if (overlap) return pipelined_reduce_scatter(b, c, act, fc2);
  OpKind k = d.sp ? OpKind::tp_reduce_scatter : OpKind::tp_all_reduce;
  return b.collective(k, GroupKind::tp, c.act_bytes_tokens(), {DepRef::op(fc2)});
}

int mlp_core_bwd(UnitBuilder& b, const RecipeContext& c, DepRef grad, const MlpWidths& w) {
  const LocalDims& d = c.d;
  std::int64_t h = d.hidden;
  DepRef src = grad;
  if (d.sp) src = DepRef::op(b.collective(OpKind::tp_all_gather, GroupKind::tp, c.gather_bytes_tokens(), {grad}));
  const bool overlap = c.tp_overlap();
  int dfc2 = gathered_gemm(b, c, OpKind::mlp_fc2_dgrad, grad, src, d.tokens, w.ffn_local, h);
  b.gemm(OpKind::mlp_fc2_wgrad, w.ffn_local, h, d.tokens, {src}, w.fc2_params);
  double act_tensors = c.arch.gated_mlp ? 5 : 3;
  int act = overlap ? b.rows(OpKind::mlp_act_bwd, d.tokens, w.ffn_local, act_tensors, 10, {DepRef::op(dfc2), src})
                    : b.rows(OpKind::mlp_act_bwd, d.tokens, w.ffn_local, act_tensors, 10, {DepRef::op(dfc2)});
  // Sequence parallelism saved fc1's input sharded: gather it again for the
  // weight gradient, overlapping the input-gradient GEMM.
  int regather = -1;
  if (d.sp) regather = b.collective(OpKind::tp_all_gather, GroupKind::tp, c.gather_bytes_tokens(), {DepRef::op(act)});
  int dfc1 = b.gemm(OpKind::mlp_fc1_dgrad, d.tokens, h, w.fc1_local, {DepRef::op(act)});
  int out = dfc1;
  if (c.tp()) {
    OpKind k = d.sp ? OpKind::tp_reduce_scatter : OpKind::tp_all_reduce;
    out = b.collective(k, GroupKind::tp, c.act_bytes_tokens(), {DepRef::op(dfc1)});  // as attention's
  }
  DepRef saved = regather >= 0 ? DepRef::op(regather) : DepRef::op(act);
  b.gemm(OpKind::mlp_fc1_wgrad, h, w.fc1_local, d.tokens, {DepRef::op(act), saved}, w.fc1_params);
  return out;
}

}  // namespace pf::models::workload
