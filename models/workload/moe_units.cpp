// Routed-expert MLP (Megatron-Core MoELayer with the alltoall token
// dispatcher, which requires sequence parallelism when tp > 1). Expert tensor
// parallelism = tp: the dispatched tokens are gathered over the TP group and
// every GPU runs its slice of each local expert; expert_tp = 1: each GPU runs
// whole experts on the tokens dispatched to it. Routing is taken as balanced:
// every GPU's experts receive as many token copies as the GPU dispatches.
#include <algorithm>

#include "models/workload/layer_units.h"
#include "models/workload/param_count.h"

namespace pf::models::workload {
namespace {

MlpWidths shared_widths(const RecipeContext& c, const LayerParams& p) {
  return {c.d.shared_ffn_local, c.d.shared_fc1_local, p.fc1, p.fc2};
}

bool has_ep(const RecipeContext& c) { return c.d.ep > 1; }

// The local experts' GEMMs run as one grouped GEMM (Megatron-Core's
// --moe-grouped-gemm, TE GroupedLinear): experts_local GEMMs, each over the
// tokens routed to one expert (balanced routing: an equal share, rounded up
// as the kernels pad), and each weight gradient over its own expert's tokens.
std::int64_t groups(const LocalDims& d) { return std::max<std::int64_t>(1, d.experts_local); }
std::int64_t rows_per_expert(const LocalDims& d) { return (d.expert_rows + groups(d) - 1) / groups(d); }

}  // namespace

int moe_block_fwd(UnitBuilder& b, const RecipeContext& c, DepRef in) {
  const LocalDims& d = c.d;
  std::int64_t h = d.hidden;
  LayerParams p = layer_params(c.model, d, true);
  int norm = b.rows(OpKind::norm_fwd, d.tokens_sp, h, 2, 5, {in});
  int router = b.gemm(OpKind::router_fwd, d.tokens_sp, d.experts, h, {DepRef::op(norm)});
  int x = b.rows(OpKind::moe_permute_fwd, d.routed_tokens, h, 2, 0, {DepRef::op(router)});
  std::int64_t routed_bytes = d.routed_tokens * h * 2;
  std::int64_t expert_bytes = d.expert_rows * h * 2;
  if (has_ep(c)) x = b.collective(OpKind::ep_dispatch, GroupKind::ep, routed_bytes, {DepRef::op(x)});
  if (d.expert_tp_gather) x = b.collective(OpKind::tp_all_gather, GroupKind::tp, expert_bytes, {DepRef::op(x)});
  const std::int64_t g = groups(d), m = rows_per_expert(d);
  int fc1 = b.grouped_gemm(OpKind::expert_fc1_fwd, g, m, d.expert_fc1_local, h, {DepRef::op(x)});
  double act_tensors = c.arch.gated_mlp ? 3 : 2;
  int act = b.rows(OpKind::expert_act_fwd, d.expert_rows, d.expert_ffn_local, act_tensors, 8, {DepRef::op(fc1)});
  int y = b.grouped_gemm(OpKind::expert_fc2_fwd, g, m, h, d.expert_ffn_local, {DepRef::op(act)});
  if (d.expert_tp_gather) y = b.collective(OpKind::tp_reduce_scatter, GroupKind::tp, expert_bytes, {DepRef::op(y)});
  if (has_ep(c)) y = b.collective(OpKind::ep_combine, GroupKind::ep, routed_bytes, {DepRef::op(y)});
  int routed = b.rows(OpKind::moe_unpermute_fwd, d.routed_tokens, h, 2, 1, {DepRef::op(y)});
  if (d.shared_ffn_local == 0) return b.rows(OpKind::residual_fwd, d.tokens_sp, h, 3, 3, {DepRef::op(routed)});
  int shared = mlp_core_fwd(b, c, DepRef::op(norm), shared_widths(c, p));
  return b.rows(OpKind::residual_fwd, d.tokens_sp, h, 4, 4, {DepRef::op(routed), DepRef::op(shared)});
}

int moe_block_bwd(UnitBuilder& b, const RecipeContext& c, DepRef grad) {
  const LocalDims& d = c.d;
  std::int64_t h = d.hidden;
  LayerParams p = layer_params(c.model, d, true);
  int res = b.rows(OpKind::residual_bwd, d.tokens_sp, h, 3, 2, {grad});
  int shared = -1;
  if (d.shared_ffn_local > 0) shared = mlp_core_bwd(b, c, DepRef::op(res), shared_widths(c, p));
  int y = b.rows(OpKind::moe_unpermute_bwd, d.routed_tokens, h, 3, 2, {DepRef::op(res)});
  std::int64_t routed_bytes = d.routed_tokens * h * 2;
  std::int64_t expert_bytes = d.expert_rows * h * 2;
  if (has_ep(c)) y = b.collective(OpKind::ep_combine, GroupKind::ep, routed_bytes, {DepRef::op(y)});
  if (d.expert_tp_gather) y = b.collective(OpKind::tp_all_gather, GroupKind::tp, expert_bytes, {DepRef::op(y)});
  const std::int64_t g = groups(d), m = rows_per_expert(d);
  int dfc2 = b.grouped_gemm(OpKind::expert_fc2_dgrad, g, m, d.expert_ffn_local, h, {DepRef::op(y)});
  b.grouped_gemm(OpKind::expert_fc2_wgrad, g, d.expert_ffn_local, h, m, {DepRef::op(y)}, p.expert_fc2,
                 ParamClass::expert);
  double act_tensors = c.arch.gated_mlp ? 5 : 3;
  int act = b.rows(OpKind::expert_act_bwd, d.expert_rows, d.expert_ffn_local, act_tensors, 10, {DepRef::op(dfc2)});
  int x = b.grouped_gemm(OpKind::expert_fc1_dgrad, g, m, h, d.expert_fc1_local, {DepRef::op(act)});
  int dfc1 = x;
  if (d.expert_tp_gather) x = b.collective(OpKind::tp_reduce_scatter, GroupKind::tp, expert_bytes, {DepRef::op(dfc1)});
  b.grouped_gemm(OpKind::expert_fc1_wgrad, g, h, d.expert_fc1_local, m, {DepRef::op(act)}, p.expert_fc1,
                 ParamClass::expert);
  if (has_ep(c)) x = b.collective(OpKind::ep_dispatch, GroupKind::ep, routed_bytes, {DepRef::op(x)});
  int perm = b.rows(OpKind::moe_permute_bwd, d.routed_tokens, h, 2, 0, {DepRef::op(x)});
  int drouter = b.gemm(OpKind::router_dgrad, d.tokens_sp, h, d.experts, {DepRef::op(perm)});
  b.gemm(OpKind::router_wgrad, h, d.experts, d.tokens_sp, {DepRef::op(perm)}, p.router);
  DepRef from_shared = shared >= 0 ? DepRef::op(shared) : DepRef::op(drouter);
  return b.rows(OpKind::norm_bwd, d.tokens_sp, h, 3, 8, {DepRef::op(drouter), from_shared}, p.norm);
}

}  // namespace pf::models::workload
