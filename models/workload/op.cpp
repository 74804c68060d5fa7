// The per-kind attribute table: name, class, collective pattern, stream.
#include "models/workload/op.h"

#include <array>

namespace pf::models::workload {
namespace {

struct KindInfo {
  std::string_view name;
  OpClass cls;
  Collective coll;
};

constexpr KindInfo compute(std::string_view name, OpClass cls) { return {name, cls, Collective::none}; }
constexpr KindInfo comm(std::string_view name, Collective coll) { return {name, OpClass::collective, coll}; }

// Indexed by OpKind; the static_assert below keeps it in step with the enum.
constexpr std::array<KindInfo, kOpKindCount> kKinds = {{
    compute("embedding_fwd", OpClass::elementwise),
    compute("embedding_bwd", OpClass::elementwise),
    compute("norm_fwd", OpClass::norm),
    compute("norm_bwd", OpClass::norm),
    compute("qkv_fwd", OpClass::gemm),
    compute("qkv_dgrad", OpClass::gemm),
    compute("qkv_wgrad", OpClass::gemm),
    compute("attention_fwd", OpClass::attention),
    compute("attention_bwd", OpClass::attention),
    compute("attn_scores_fwd", OpClass::gemm),
    compute("attn_softmax_fwd", OpClass::elementwise),
    compute("attn_context_fwd", OpClass::gemm),
    compute("attn_context_dgrad", OpClass::gemm),
    compute("attn_context_wgrad", OpClass::gemm),
    compute("attn_softmax_bwd", OpClass::elementwise),
    compute("attn_scores_dgrad", OpClass::gemm),
    compute("attn_scores_wgrad", OpClass::gemm),
    compute("attn_proj_fwd", OpClass::gemm),
    compute("attn_proj_dgrad", OpClass::gemm),
    compute("attn_proj_wgrad", OpClass::gemm),
    compute("mlp_fc1_fwd", OpClass::gemm),
    compute("mlp_fc1_dgrad", OpClass::gemm),
    compute("mlp_fc1_wgrad", OpClass::gemm),
    compute("mlp_act_fwd", OpClass::elementwise),
    compute("mlp_act_bwd", OpClass::elementwise),
    compute("mlp_fc2_fwd", OpClass::gemm),
    compute("mlp_fc2_dgrad", OpClass::gemm),
    compute("mlp_fc2_wgrad", OpClass::gemm),
    compute("residual_fwd", OpClass::elementwise),
    compute("residual_bwd", OpClass::elementwise),
    compute("router_fwd", OpClass::gemm),
    compute("router_dgrad", OpClass::gemm),
    compute("router_wgrad", OpClass::gemm),
    compute("moe_permute_fwd", OpClass::elementwise),
    compute("moe_permute_bwd", OpClass::elementwise),
    compute("moe_unpermute_fwd", OpClass::elementwise),
    compute("moe_unpermute_bwd", OpClass::elementwise),
    compute("moe_route_fwd", OpClass::elementwise),
    compute("moe_route_bwd", OpClass::elementwise),
    compute("moe_sort_fwd", OpClass::elementwise),
    compute("moe_sort_bwd", OpClass::elementwise),
    compute("moe_pad_fwd", OpClass::elementwise),
    compute("moe_pad_bwd", OpClass::elementwise),
    compute("expert_fc1_fwd", OpClass::gemm),
    compute("expert_fc1_dgrad", OpClass::gemm),
    compute("expert_fc1_wgrad", OpClass::gemm),
    compute("expert_act_fwd", OpClass::elementwise),
    compute("expert_act_bwd", OpClass::elementwise),
    compute("expert_clamp_fwd", OpClass::elementwise),
    compute("expert_clamp_bwd", OpClass::elementwise),
    compute("expert_fc2_fwd", OpClass::gemm),
    compute("expert_fc2_dgrad", OpClass::gemm),
    compute("expert_fc2_wgrad", OpClass::gemm),
    compute("lm_head_fwd", OpClass::gemm),
    compute("lm_head_dgrad", OpClass::gemm),
    compute("lm_head_wgrad", OpClass::gemm),
    compute("loss_fwd", OpClass::elementwise),
    compute("loss_bwd", OpClass::elementwise),
    compute("mtp_proj_fwd", OpClass::gemm),
    compute("mtp_proj_dgrad", OpClass::gemm),
    compute("mtp_proj_wgrad", OpClass::gemm),
    compute("rope_fwd", OpClass::elementwise),
    compute("rope_bwd", OpClass::elementwise),
    compute("fp8_quantize", OpClass::elementwise),
    compute("optimizer_step", OpClass::elementwise),
    compute("main_grad_accumulate", OpClass::elementwise),
    comm("tp_all_reduce", Collective::all_reduce),
    comm("tp_all_gather", Collective::all_gather),
    comm("tp_reduce_scatter", Collective::reduce_scatter),
    comm("cp_kv_exchange", Collective::ring_exchange),
    comm("ep_dispatch", Collective::all_to_all),
    comm("ep_combine", Collective::all_to_all),
    comm("ep_count_gather", Collective::all_gather),
    comm("ep_probs_exchange", Collective::all_to_all),
    comm("dp_grad_all_reduce", Collective::all_reduce),
    comm("dp_grad_reduce_scatter", Collective::reduce_scatter),
    comm("dp_param_all_gather", Collective::all_gather),
    comm("embedding_grad_all_reduce", Collective::all_reduce),
    {"pp_send", OpClass::p2p, Collective::send},
    {"pp_recv", OpClass::p2p, Collective::recv},
    compute("offload_d2h", OpClass::host_copy),
    compute("reload_h2d", OpClass::host_copy),
    compute("imported_fwd", OpClass::elementwise),
    compute("imported_input_grad", OpClass::elementwise),
    compute("imported_weight_grad", OpClass::elementwise),
    comm("imported_all_reduce", Collective::all_reduce),
    comm("imported_all_gather", Collective::all_gather),
    comm("imported_reduce_scatter", Collective::reduce_scatter),
    comm("imported_all_to_all", Collective::all_to_all),
}};
static_assert(kKinds[static_cast<int>(OpKind::pp_recv)].name == "pp_recv", "kind table out of step with OpKind");
static_assert(kKinds[static_cast<int>(OpKind::imported_all_to_all)].name == "imported_all_to_all", "kind table out of step");
static_assert(kKinds[static_cast<int>(OpKind::optimizer_step)].name == "optimizer_step", "kind table out of step");
static_assert(kKinds[static_cast<int>(OpKind::tp_all_reduce)].name == "tp_all_reduce", "kind table out of step");

constexpr std::array<std::string_view, kGroupKindCount> kGroupNames = {
    "none", "tp", "cp", "dp", "dp_cp", "ep", "edp", "pp", "embd"};

const KindInfo& info(OpKind kind) { return kKinds[static_cast<std::size_t>(kind)]; }

}  // namespace

std::string_view kind_name(OpKind kind) { return info(kind).name; }
OpClass op_class(OpKind kind) { return info(kind).cls; }
Collective collective_of(OpKind kind) { return info(kind).coll; }

Stream stream_of(OpKind kind) {
  switch (op_class(kind)) {
    case OpClass::collective: return Stream::comm;
    case OpClass::p2p: return Stream::p2p;
    case OpClass::host_copy: return Stream::copy;
    default: return Stream::compute;
  }
}

bool is_matmul(OpKind kind) {
  OpClass c = op_class(kind);
  return c == OpClass::gemm || c == OpClass::attention;
}

bool fp8_linear(OpKind kind) {
  switch (kind) {
    case OpKind::qkv_fwd: case OpKind::qkv_dgrad: case OpKind::qkv_wgrad:
    case OpKind::attn_proj_fwd: case OpKind::attn_proj_dgrad: case OpKind::attn_proj_wgrad:
    case OpKind::mlp_fc1_fwd: case OpKind::mlp_fc1_dgrad: case OpKind::mlp_fc1_wgrad:
    case OpKind::mlp_fc2_fwd: case OpKind::mlp_fc2_dgrad: case OpKind::mlp_fc2_wgrad:
    case OpKind::expert_fc1_fwd: case OpKind::expert_fc1_dgrad: case OpKind::expert_fc1_wgrad:
    case OpKind::expert_fc2_fwd: case OpKind::expert_fc2_dgrad: case OpKind::expert_fc2_wgrad:
    case OpKind::mtp_proj_fwd: case OpKind::mtp_proj_dgrad: case OpKind::mtp_proj_wgrad: return true;
    default: return false;
  }
}

bool quantizes_input(OpKind kind) {
  if (!fp8_linear(kind)) return false;
  const std::string_view name = kind_name(kind);
  return name.ends_with("_fwd") || name.ends_with("_dgrad");
}

std::string_view group_kind_name(GroupKind kind) { return kGroupNames[static_cast<std::size_t>(kind)]; }

void reset(Op& op) {
  // Not const: GCC sees through a constant blank and emits the string store again.
  static Op blank;
  op = blank;
}

}  // namespace pf::models::workload
