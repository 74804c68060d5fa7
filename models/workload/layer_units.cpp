// Assembles the transformer-layer units from the attention and MLP pieces.
#include "models/workload/layer_units.h"

#include "models/workload/layer_segments.h"
#include "models/workload/param_count.h"

namespace pf::models::workload {
namespace {

MlpWidths dense_widths(const RecipeContext& c, const LayerParams& p) {
  return {c.d.ffn_local, c.d.fc1_local, p.fc1, p.fc2};
}

void set_params(Unit& u, const LayerParams& p) {
  u.param_elems[static_cast<int>(ParamClass::dense)] = p.dense();
  u.param_elems[static_cast<int>(ParamClass::expert)] = p.expert();
}

// The layer's modules in a CUDA graph (training.cuda_graph_scope), forward or
// backward alike: TE's make_graphed_callables captures both passes. A MoE
// layer's moe_router / moe_preprocess parts are marked by moe_block_fwd/bwd.
void graph_mlp(UnitBuilder& b, const RecipeContext& c, bool moe, int first) {
  if (c.graphs.has(moe ? CudaGraphScope::moe : CudaGraphScope::mlp)) b.mark_graphed(first, b.size());
}

void graph_attention(UnitBuilder& b, const RecipeContext& c, int first) {
  if (c.graphs.has(CudaGraphScope::attn)) b.mark_graphed(first, b.size());
}

}  // namespace

int recomputed_norm(UnitBuilder& b, const RecipeContext& c, int after) {
  if (!c.recomputes(RecomputeModules::layernorm)) return after;
  return b.rows(OpKind::norm_fwd, c.d.tokens_sp, c.d.hidden, 2, 5, {DepRef::op(after)}, 0, true);
}

int dense_mlp_block_fwd(UnitBuilder& b, const RecipeContext& c, DepRef in) {
  LayerParams p = layer_params(c.model, c.d, false);
  int norm = b.rows(OpKind::norm_fwd, c.d.tokens_sp, c.d.hidden, 2, 5, {in});
  int out = mlp_core_fwd(b, c, DepRef::op(norm), dense_widths(c, p));
  return b.rows(OpKind::residual_fwd, c.d.tokens_sp, c.d.hidden, 3, 3, {DepRef::op(out)});
}

int dense_mlp_block_bwd(UnitBuilder& b, const RecipeContext& c, DepRef grad) {
  LayerParams p = layer_params(c.model, c.d, false);
  int res = b.rows(OpKind::residual_bwd, c.d.tokens_sp, c.d.hidden, 3, 2, {grad});
  res = recomputed_norm(b, c, res);
  if (c.recomputes(RecomputeModules::mlp)) {  // the checkpointed MLP re-runs from its saved input
    const int first = b.size();
    res = mlp_core_fwd(b, c, DepRef::op(res), dense_widths(c, p));
    b.mark_recompute(first, b.size());
  }
  int out = mlp_core_bwd(b, c, DepRef::op(res), dense_widths(c, p));
  return b.rows(OpKind::norm_bwd, c.d.tokens_sp, c.d.hidden, 3, 8, {DepRef::op(out)}, p.norm);
}

void wait_for_params(Unit& u) {
  for (DepRef& d : u.ops.front().deps) {
    if (d.kind == DepKind::none) {
      d = DepRef::param();
      return;
    }
  }
}

Unit layer_forward_unit(const RecipeContext& c, bool moe) {
  LayerParams p = layer_params(c.model, c.d, moe);
  UnitBuilder b(Phase::fwd, false, c.kernels);
  int attn = attention_block_fwd(b, c, DepRef::input());
  graph_attention(b, c, 0);
  const int mlp_first = b.size();
  if (moe) {
    moe_block_fwd(b, c, DepRef::op(attn));
  } else {
    dense_mlp_block_fwd(b, c, DepRef::op(attn));
  }
  graph_mlp(b, c, moe, mlp_first);
  Unit u = b.take();
  mark_forward_segments(u, mlp_first);
  set_params(u, p);
  wait_for_params(u);
  return u;
}

Unit layer_backward_unit(const RecipeContext& c, bool moe) {
  LayerParams p = layer_params(c.model, c.d, moe);
  UnitBuilder b(Phase::bwd, false, c.kernels);
  int mlp = moe ? moe_block_bwd(b, c, DepRef::input()) : dense_mlp_block_bwd(b, c, DepRef::input());
  graph_mlp(b, c, moe, 0);
  const int attn_first = b.size();
  attention_block_bwd(b, c, DepRef::op(mlp));
  graph_attention(b, c, attn_first);
  Unit u = b.take();
  mark_backward_segments(u, attn_first);
  if (c.delay_wgrad) delay_weight_gradients(u);
  set_params(u, p);
  wait_for_params(u);
  return u;
}

Unit layer_recompute_unit(const RecipeContext& c, bool moe) {
  RecipeContext plain = c;
  plain.recompute = RecomputeModules{0};
  Unit u = layer_forward_unit(plain, moe);
  // Re-run from the checkpointed layer input: no dependency on the incoming
  // gradient, and the backward that follows takes the gradient as its input.
  for (OpTemplate& t : u.ops) {
    t.phase = Phase::bwd;
    t.recompute = true;
    for (DepRef& d : t.deps) {
      if (d.kind == DepKind::input) d = DepRef{};
    }
  }
  u.passes_input = false;
  return u;
}

}  // namespace pf::models::workload
