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

// What a MoE layer launches beyond its dataflow, counted in the code
// Megatron-Bridge 25.11 runs (Megatron-Core 0d8e0714, core_dev_r0.15.0;
// Transformer Engine v2.9) with the Bridge's MoE defaults: alltoall
// dispatcher, fused permutation, unfused router (Megatron-Core's default; the
// Bridge's perf configs fuse it, below), aux-loss load balancing.
// Paths under megatron/core/transformer/moe/.
//  - Routing (router.py:98-527, moe_utils.py:37-114 and 524-655): softmax in
//    fp32, top-k, the routing map, the aux-loss scores, its loss and its
//    tracker: 27 small kernels forward; backward the aux-loss scaler, the loss,
//    top-k and the two gradient sums: 14. Of the 27: the top-k routing 11
//    (topk, fp32 softmax, cast, two zeros + out-of-place scatter maps, bool),
//    the aux-loss scores 7 (softmax, topk, zeros + cast, scatter, bool), the
//    loss 4 (sum, mul, sum, scale); the rest (forced-balance random logits,
//    tokens per expert, the tracker) 5.
//  - With --moe-router-fusion (training.moe_router_fusion) each of the three
//    is one Transformer Engine kernel (TE 2.9 pytorch/router.py ->
//    csrc/extensions/router.cpp: outputs from at::empty and one launch in
//    common/fused_router/*.cu, forward and backward alike): 27 - 22 + 3 = 8
//    forward; backward the scaler (2), the three fused backwards and the
//    gradient sum: 6. Their passes over the tokens x experts scores: each
//    fused kernel reads its input and writes its outputs once (about 10
//    16-bit units forward, 12 backward).
//  - Dispatcher preprocess (token_dispatcher.py:519-592): 6 small kernels
//    around an all-gather of every EP rank's per-expert token counts (547),
//    which the host copies out and then waits for (907): the host sync
//    before the all-to-all (training.host_sync_on_moe_dispatch).
//  - Fused permutation (TE pytorch/triton/permutation.py): 3 row-map kernels
//    and the permute forward, one kernel backward.
//  - The probabilities travel in an all-to-all of their own after the tokens'
//    (674, 677; the backward likewise).
//  - With more than one local expert the received tokens are reordered by
//    expert (sort_chunks_by_idxs, 740: 2 fused kernels) and back before the
//    combine (774-779: 3), one kernel each backward: a read and a write of
//    the received rows each.
//  - TE GroupedLinear (grouped_linear.py:171 -> cublaslt_gemm.cu:924-977):
//    one cuBLASLt GEMM per local expert, round-robin over 4 streams; the
//    backward runs a dgrad and a wgrad GEMM per expert.
// The flex dispatcher (training.moe_token_dispatcher: flex, DeepEP or
// HybridEP) computes the dispatch layout on the GPU in one kernel instead of
// the counts' kernels and all-gather, carries the probabilities inside its
// fused dispatch and delivers the tokens grouped by expert: no count gather,
// no probabilities all-to-all, no sort.
//  - fp8 (experts.py TEGroupedMLP -> TE fp8_padding.py): each local expert's
//    rows must be a multiple of 16 (32 for MXFP8) for the fp8 grouped GEMM;
//    unless the router pads the routing map (--moe-router-padding-for-fp8) or
//    HybridEP's dispatch pads them (flex dispatcher, hybridep backend),
//    Fp8Padding copies the received rows into padded blocks (one kernel for
//    the tokens, one for their probabilities) and Fp8Unpadding copies fc2's
//    output back (one); backward the gradients take the reverse copies (one
//    for fc2's output gradient; two for the input's and the probabilities').
//    A dropless router's counts are aligned on every local expert only by
//    chance, so the copies are priced whenever training is fp8.
// Each kernel costs the host one issue; their GPU time is their bytes.
constexpr int kRouteFwdKernels = 27;
constexpr int kRouteBwdKernels = 14;
constexpr int kFusedRouteFwdKernels = 8;
constexpr int kFusedRouteBwdKernels = 6;
constexpr int kCountKernelsBeforeGather = 3;
constexpr int kCountKernelsAfterGather = 3;
constexpr int kFlexLayoutKernels = 1;
constexpr int kPermuteFwdKernels = 4;
constexpr int kSortFwdKernels = 2;
constexpr int kUnsortFwdKernels = 3;
// Passes over the tokens x experts score matrix, in 16-bit tensor units: the
// fp32 softmax, top-k, scatters and aux-loss scores read and write it about
// a dozen times forward (fp32: two units a pass), eight backward.
constexpr double kRouteFwdTensors = 24;
constexpr double kRouteBwdTensors = 16;
constexpr double kFusedRouteFwdTensors = 10;
constexpr double kFusedRouteBwdTensors = 12;

int route_fwd_kernels(const RecipeContext& c) { return c.router_fusion ? kFusedRouteFwdKernels : kRouteFwdKernels; }
int route_bwd_kernels(const RecipeContext& c) { return c.router_fusion ? kFusedRouteBwdKernels : kRouteBwdKernels; }
double route_fwd_tensors(const RecipeContext& c) { return c.router_fusion ? kFusedRouteFwdTensors : kRouteFwdTensors; }
double route_bwd_tensors(const RecipeContext& c) { return c.router_fusion ? kFusedRouteBwdTensors : kRouteBwdTensors; }
constexpr std::int64_t kCountBytes = 8;  // one int64 token count per expert

bool alltoall(const RecipeContext& c) { return has_ep(c) && !c.flex_dispatcher; }
// Under combined 1F1B the shared experts run in the experts' piece: forward
// after the dispatch, before the routed experts (fine_grained_callables.py
// submodule_moe_forward); backward after the combine's all-to-all.
bool shared_experts_beside_routed(const RecipeContext& c) { return c.a2a_overlap && has_ep(c); }
bool sorts_by_expert(const RecipeContext& c) { return alltoall(c) && c.d.experts_local > 1; }

// One Fp8Padding / Fp8Unpadding copy of the experts' rows (read and write,
// 16-bit, hidden wide); `launches` counts the probabilities' copy beside it.
int fp8_padding_copy(UnitBuilder& b, const RecipeContext& c, OpKind kind, int launches, int after) {
  if (!c.fp8_expert_padding) return after;
  int op = b.rows(kind, c.d.expert_rows, c.d.hidden, 2, 0, {DepRef::op(after)});
  b.set_launches(op, launches);
  return op;
}

// The experts' activation (fused, weighted by the routing probabilities). A
// clamped gate (model.activation_clamp, GPT-OSS; Megatron-Core 0d8e0714
// fused_bias_geglu.py weighted_bias_quick_geglu_impl) first clamps each half
// (a read and a write of one half each) and concatenates them (a read and a
// write of both): 8 16-bit passes of the expert width in 3 kernels
// (expert_clamp_fwd); backward, autograd masks the gradient of each half
// (read the gradient and the input, write the gradient: 6 passes, 2 kernels;
// expert_clamp_bwd). quick_geglu also builds its linear offset with
// torch.tensor(..., device=cuda) every forward: a host-to-device copy, one
// more host issue, that synchronises the stream before the fused kernel
// (training.host_sync_on_quick_geglu; pytorch/pytorch#120996, #190217).
constexpr double kClampFwdTensors = 8;
constexpr int kClampFwdKernels = 3;
constexpr double kClampBwdTensors = 6;
constexpr int kClampBwdKernels = 2;

int expert_act_fwd(UnitBuilder& b, const RecipeContext& c, DepRef input, DepRef other, bool recompute) {
  const LocalDims& d = c.d;
  if (c.arch.clamped_glu) {
    const int clamp =
        b.rows(OpKind::expert_clamp_fwd, d.expert_rows, d.expert_ffn_local, kClampFwdTensors, 1, {input}, 0, recompute);
    b.set_launches(clamp, kClampFwdKernels);
    input = DepRef::op(clamp);
  }
  const int act = b.rows(OpKind::expert_act_fwd, d.expert_rows, d.expert_ffn_local, c.arch.gated_mlp ? 3 : 2, 8,
                         {input, other}, 0, recompute);
  if (c.arch.quick_geglu) b.set_launches(act, 2);  // the linear offset's copy, then the kernel
  return act;
}

int expert_act_bwd(UnitBuilder& b, const RecipeContext& c, DepRef grad, DepRef saved) {
  const LocalDims& d = c.d;
  const int act =
      b.rows(OpKind::expert_act_bwd, d.expert_rows, d.expert_ffn_local, c.arch.gated_mlp ? 5 : 3, 10, {grad, saved});
  if (!c.arch.clamped_glu) return act;
  const int clamp = b.rows(OpKind::expert_clamp_bwd, d.expert_rows, d.expert_ffn_local, kClampBwdTensors, 1,
                           {DepRef::op(act), saved});
  b.set_launches(clamp, kClampBwdKernels);
  return clamp;
}

int grouped_expert_gemm(UnitBuilder& b, OpKind kind, const LocalDims& d, std::int64_t M, std::int64_t N,
                        std::int64_t K, std::initializer_list<DepRef> deps, std::int64_t grad_elems = 0) {
  int op = b.grouped_gemm(kind, groups(d), M, N, K, deps, grad_elems, ParamClass::expert);
  b.set_launches(op, groups(d));
  return op;
}

// Forward routing: scores, top-k, aux loss and token counts; with EP the
// counts are all-gathered and the dispatcher's last count kernels wait for
// them, so the host sync before the dispatch waits for the gather too.
int route_fwd(UnitBuilder& b, const RecipeContext& c, int router) {
  const LocalDims& d = c.d;
  int route = b.rows(OpKind::moe_route_fwd, d.tokens_sp, d.experts, route_fwd_tensors(c), 10, {DepRef::op(router)});
  if (has_ep(c) && c.flex_dispatcher) {
    b.set_launches(route, route_fwd_kernels(c) + kFlexLayoutKernels);
    return route;
  }
  b.set_launches(route, route_fwd_kernels(c) + kCountKernelsBeforeGather + (has_ep(c) ? 0 : kCountKernelsAfterGather));
  if (!has_ep(c)) return route;
  int gather = b.collective(OpKind::ep_count_gather, GroupKind::ep, d.ep * d.experts * kCountBytes, {DepRef::op(route)});
  int counts = b.rows(OpKind::moe_route_fwd, d.ep, d.experts, 2, 1, {DepRef::op(gather)});
  b.set_launches(counts, kCountKernelsAfterGather);
  return counts;
}

int sort_by_expert(UnitBuilder& b, const RecipeContext& c, OpKind kind, int launches, int after) {
  if (!sorts_by_expert(c)) return after;
  int op = b.rows(kind, c.d.expert_rows, c.d.hidden, 2, 0, {DepRef::op(after)});
  b.set_launches(op, launches);
  return op;
}

// The routing probabilities' all-to-all (16-bit, one per routed token); the
// flex dispatcher carries them with the tokens.
int probs_exchange(UnitBuilder& b, const RecipeContext& c, int after) {
  if (!alltoall(c)) return after;
  return b.collective(OpKind::ep_probs_exchange, GroupKind::ep, c.d.received_tokens * 2, {DepRef::op(after)});
}

// Megatron's MoELayer after the pre-MLP norm `norm`: router, dispatch,
// experts, combine, shared experts. `first` starts the CUDA-graph range of
// moe_router. Returns the routed output and the shared experts' (-1: none).
// Fine-grained activation offloading (training.offload_modules): the bytes
// of the routed experts' fc1 input (fp8 training keeps its one-byte copy)
// and of their activation's input, fc1's output.
std::int64_t fc1_input_bytes(const RecipeContext& c) {
  return c.d.expert_rows * c.d.hidden * (c.kernels.fp8_quantize_bytes > 0 ? 1 : 2);
}
// With a clamped gate both copies of fc1's output (the clamps' input and the
// clamped concatenation, models/memory activation_memory.cpp) go.
std::int64_t act_input_bytes(const RecipeContext& c) {
  return c.d.expert_rows * c.d.expert_fc1_local * 2 * (c.arch.clamped_glu ? 2 : 1);
}
// Which of the layer's offloaded tensors a copy moves (OpTemplate::host_slot).
constexpr int kFc1InputSlot = 0, kActInputSlot = 1;

// `offload`: the layer's own forward, whose module inputs training.offload_modules
// sends to the host once the module has run (a recomputed forward sends nothing).
std::pair<int, int> moe_layer_fwd(UnitBuilder& b, const RecipeContext& c, int norm, int first, bool offload) {
  const LocalDims& d = c.d;
  std::int64_t h = d.hidden;
  LayerParams p = layer_params(c.model, d, true);
  int router = b.gemm(OpKind::router_fwd, d.tokens_sp, d.experts, h, {DepRef::op(norm)});
  int counts = route_fwd(b, c, router);
  // CUDA graphs (training.cuda_graph_scope): moe_router captures the norm,
  // the router and its routing op; moe_preprocess the token counts after it.
  const int route = router + 1;
  if (c.graphs.has(CudaGraphScope::moe_router)) b.mark_graphed(first, route + 1);
  if (c.graphs.has(CudaGraphScope::moe_preprocess)) b.mark_graphed(route + 1, counts + 1);
  int x = b.rows(OpKind::moe_permute_fwd, d.routed_tokens, h, 2, 0, {DepRef::op(router), DepRef::op(counts)});
  b.set_launches(x, kPermuteFwdKernels);
  // The all-to-alls as the busiest receiver sees them (training.moe_load_imbalance).
  std::int64_t routed_bytes = d.received_tokens * h * 2;
  std::int64_t expert_bytes = d.expert_rows * h * 2;
  int probs = x;  // what the activation's multiply by the routing probabilities waits for
  if (has_ep(c)) {
    x = b.collective(OpKind::ep_dispatch, GroupKind::ep, routed_bytes, {DepRef::op(x)});
    probs = probs_exchange(b, c, x);
  }
  int shared = -1;
  if (shared_experts_beside_routed(c) && d.shared_ffn_local > 0) {
    shared = mlp_core_fwd(b, c, DepRef::op(norm), shared_widths(c, p));
  }
  if (d.expert_tp_gather) x = b.collective(OpKind::tp_all_gather, GroupKind::tp, expert_bytes, {DepRef::op(x)});
  x = sort_by_expert(b, c, OpKind::moe_sort_fwd, kSortFwdKernels, x);
  x = fp8_padding_copy(b, c, OpKind::moe_pad_fwd, 2, x);
  const std::int64_t m = rows_per_expert(d);
  int fc1 = grouped_expert_gemm(b, OpKind::expert_fc1_fwd, d, m, d.expert_fc1_local, h, {DepRef::op(x)});
  int act = expert_act_fwd(b, c, DepRef::op(fc1), DepRef::op(probs), false);
  if (offload && c.offload.has(OffloadModules::expert_fc1))
    b.host_copy(OpKind::offload_d2h, fc1_input_bytes(c), kFc1InputSlot, {DepRef::op(fc1)});
  if (offload && c.offload.has(OffloadModules::moe_act))
    b.host_copy(OpKind::offload_d2h, act_input_bytes(c), kActInputSlot, {DepRef::op(act)});
  int y = grouped_expert_gemm(b, OpKind::expert_fc2_fwd, d, m, h, d.expert_ffn_local, {DepRef::op(act)});
  y = fp8_padding_copy(b, c, OpKind::moe_pad_fwd, 1, y);
  y = sort_by_expert(b, c, OpKind::moe_sort_fwd, kUnsortFwdKernels, y);
  if (d.expert_tp_gather) y = b.collective(OpKind::tp_reduce_scatter, GroupKind::tp, expert_bytes, {DepRef::op(y)});
  if (has_ep(c)) y = b.collective(OpKind::ep_combine, GroupKind::ep, routed_bytes, {DepRef::op(y)});
  int routed = b.rows(OpKind::moe_unpermute_fwd, d.routed_tokens, h, 2, 1, {DepRef::op(y)});
  if (d.shared_ffn_local == 0 || shared >= 0) return {routed, shared};
  return {routed, mlp_core_fwd(b, c, DepRef::op(norm), shared_widths(c, p))};
}

// Submodule checkpoints of a MoE layer: the whole layer (moe) or its shared
// experts re-run from the saved norm output before the backward; returns
// what the backward then waits for.
int recomputed_moe_layer(UnitBuilder& b, const RecipeContext& c, int after) {
  const int first = b.size();
  if (c.recomputes(RecomputeModules::moe)) {
    auto [routed, shared] = moe_layer_fwd(b, c, after, first, false);
    after = shared < 0 ? routed : shared;
  } else if (c.recomputes(RecomputeModules::shared_experts) && c.d.shared_ffn_local > 0) {
    after = mlp_core_fwd(b, c, DepRef::op(after), shared_widths(c, layer_params(c.model, c.d, true)));
  }
  b.mark_recompute(first, b.size());
  return after;
}

}  // namespace

int moe_block_fwd(UnitBuilder& b, const RecipeContext& c, DepRef in) {
  const LocalDims& d = c.d;
  const int first = b.size();
  int norm = b.rows(OpKind::norm_fwd, d.tokens_sp, d.hidden, 2, 5, {in});
  // A checkpointed MoE layer (recompute_modules moe) keeps nothing to offload.
  auto [routed, shared] = moe_layer_fwd(b, c, norm, first, !c.recomputes(RecomputeModules::moe));
  if (shared < 0) return b.rows(OpKind::residual_fwd, d.tokens_sp, d.hidden, 3, 3, {DepRef::op(routed)});
  return b.rows(OpKind::residual_fwd, d.tokens_sp, d.hidden, 4, 4, {DepRef::op(routed), DepRef::op(shared)});
}

int moe_block_bwd(UnitBuilder& b, const RecipeContext& c, DepRef grad) {
  const LocalDims& d = c.d;
  std::int64_t h = d.hidden;
  LayerParams p = layer_params(c.model, d, true);
  int res = b.rows(OpKind::residual_bwd, d.tokens_sp, h, 3, 2, {grad});
  res = recomputed_norm(b, c, res);
  res = recomputed_moe_layer(b, c, res);
  // The shared experts' backward: before the routed experts' (autograd), or
  // in the experts' piece after the combine's all-to-all under combined 1F1B.
  int shared = -1;
  const bool shared_late = shared_experts_beside_routed(c);
  if (d.shared_ffn_local > 0 && !shared_late) shared = mlp_core_bwd(b, c, DepRef::op(res), shared_widths(c, p));
  int y = b.rows(OpKind::moe_unpermute_bwd, d.routed_tokens, h, 3, 2, {DepRef::op(res)});
  // The all-to-alls as the busiest receiver sees them (training.moe_load_imbalance).
  std::int64_t routed_bytes = d.received_tokens * h * 2;
  std::int64_t expert_bytes = d.expert_rows * h * 2;
  if (has_ep(c)) y = b.collective(OpKind::ep_combine, GroupKind::ep, routed_bytes, {DepRef::op(y)});
  if (d.shared_ffn_local > 0 && shared_late) shared = mlp_core_bwd(b, c, DepRef::op(res), shared_widths(c, p));
  if (d.expert_tp_gather) y = b.collective(OpKind::tp_all_gather, GroupKind::tp, expert_bytes, {DepRef::op(y)});
  y = sort_by_expert(b, c, OpKind::moe_sort_bwd, 1, y);
  y = fp8_padding_copy(b, c, OpKind::moe_pad_bwd, 1, y);
  const std::int64_t m = rows_per_expert(d);
  // Offloaded inputs come back one module ahead of their use: the
  // activation's once the experts' backward starts, fc1's once the
  // activation's backward may start (a re-run MoE layer made its own).
  const bool reload = !c.recomputes(RecomputeModules::moe);
  const int act_in = reload && c.offload.has(OffloadModules::moe_act)
                         ? b.host_copy(OpKind::reload_h2d, act_input_bytes(c), kActInputSlot, {DepRef::op(y)})
                         : y;
  // fc2's weight gradient reads the discarded activation output (a re-run MoE layer rebuilt it already).
  if (c.recomputes(RecomputeModules::moe_act) && !c.recomputes(RecomputeModules::moe)) {
    expert_act_fwd(b, c, DepRef::op(y), DepRef::op(act_in), true);
  }
  int dfc2 = grouped_expert_gemm(b, OpKind::expert_fc2_dgrad, d, m, d.expert_ffn_local, h, {DepRef::op(y)});
  grouped_expert_gemm(b, OpKind::expert_fc2_wgrad, d, d.expert_ffn_local, h, m, {DepRef::op(y)}, p.expert_fc2);
  const int fc1_in = reload && c.offload.has(OffloadModules::expert_fc1)
                         ? b.host_copy(OpKind::reload_h2d, fc1_input_bytes(c), kFc1InputSlot, {DepRef::op(dfc2)})
                         : dfc2;
  int act = expert_act_bwd(b, c, DepRef::op(dfc2), DepRef::op(act_in));
  int x = grouped_expert_gemm(b, OpKind::expert_fc1_dgrad, d, m, h, d.expert_fc1_local, {DepRef::op(act)});
  grouped_expert_gemm(b, OpKind::expert_fc1_wgrad, d, h, d.expert_fc1_local, m, {DepRef::op(act), DepRef::op(fc1_in)},
                      p.expert_fc1);
  x = fp8_padding_copy(b, c, OpKind::moe_pad_bwd, 2, x);
  x = sort_by_expert(b, c, OpKind::moe_sort_bwd, 1, x);
  if (d.expert_tp_gather) x = b.collective(OpKind::tp_reduce_scatter, GroupKind::tp, expert_bytes, {DepRef::op(x)});
  int probs = x;
  if (has_ep(c)) {
    x = b.collective(OpKind::ep_dispatch, GroupKind::ep, routed_bytes, {DepRef::op(x)});
    probs = probs_exchange(b, c, x);
  }
  int perm = b.rows(OpKind::moe_permute_bwd, d.routed_tokens, h, 2, 0, {DepRef::op(x)});
  int route = b.rows(OpKind::moe_route_bwd, d.tokens_sp, d.experts, route_bwd_tensors(c), 6,
                     {DepRef::op(perm), DepRef::op(probs)});
  b.set_launches(route, route_bwd_kernels(c));
  int drouter = b.gemm(OpKind::router_dgrad, d.tokens_sp, h, d.experts, {DepRef::op(route)});
  b.gemm(OpKind::router_wgrad, h, d.experts, d.tokens_sp, {DepRef::op(route)}, p.router);
  DepRef from_shared = shared >= 0 ? DepRef::op(shared) : DepRef::op(drouter);
  int out = b.rows(OpKind::norm_bwd, d.tokens_sp, h, 3, 8, {DepRef::op(drouter), from_shared}, p.norm);
  // The router's graph replays its backward too: routing, router GEMMs, norm.
  if (c.graphs.has(CudaGraphScope::moe_router)) b.mark_graphed(route, out + 1);
  return out;
}

}  // namespace pf::models::workload
