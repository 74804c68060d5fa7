#include "models/workload/layer_segments.h"

#include <cstdint>
#include <vector>

#include "core/error.h"

namespace pf::models::workload {
namespace {

// The first op of `kind` at or after `from` that is not a recomputation's;
// -1 if none.
int find_op(const Unit& u, OpKind kind, int from) {
  for (int i = from; i < static_cast<int>(u.ops.size()); ++i) {
    const OpTemplate& t = u.ops[static_cast<std::size_t>(i)];
    if (t.kind == kind && !t.recompute) return i;
  }
  return -1;
}

// The op after a dispatch all-to-all and the probabilities' all-to-all beside it.
int after_dispatch(const Unit& u, int dispatch) {
  const int next = dispatch + 1;
  const bool probs = next < static_cast<int>(u.ops.size()) &&
                     u.ops[static_cast<std::size_t>(next)].kind == OpKind::ep_probs_exchange;
  return probs ? next + 1 : next;
}

std::uint16_t at(int i) { return static_cast<std::uint16_t>(i); }

// TE modules' weight gradients: what backward_dw runs. The router's weight
// is a plain parameter whose gradient autograd computes in place.
bool delayed_kind(OpKind k) {
  switch (k) {
    case OpKind::qkv_wgrad:
    case OpKind::attn_proj_wgrad:
    case OpKind::mlp_fc1_wgrad:
    case OpKind::mlp_fc2_wgrad:
    case OpKind::expert_fc1_wgrad:
    case OpKind::expert_fc2_wgrad:
      return true;
    default:
      return false;
  }
}

// Stable-partitions ops [lo, hi) into those that neither are nor wait on a
// weight gradient, then the rest; `order` maps new positions to old.
void partition_range(const Unit& u, int lo, int hi, std::vector<int>& order) {
  std::vector<char> late(u.ops.size(), 0);
  for (int i = lo; i < hi; ++i) {
    const OpTemplate& t = u.ops[static_cast<std::size_t>(i)];
    bool l = delayed_kind(t.kind);
    for (const DepRef& d : t.deps) {
      if (d.kind == DepKind::unit && late[d.index]) l = true;
    }
    late[static_cast<std::size_t>(i)] = l ? 1 : 0;
  }
  int next = lo;
  for (int pass = 0; pass < 2; ++pass) {
    for (int i = lo; i < hi; ++i) {
      if (late[static_cast<std::size_t>(i)] == pass) order[static_cast<std::size_t>(next++)] = i;
    }
  }
}

}  // namespace

void mark_forward_segments(Unit& u, int mlp_first) {
  const int size = static_cast<int>(u.ops.size());
  const int dispatch = find_op(u, OpKind::ep_dispatch, mlp_first);
  if (dispatch < 0) {  // dense: attention, then the whole MLP
    u.segment_ends = {at(mlp_first), at(mlp_first), at(size), at(size)};
    return;
  }
  const int combine = find_op(u, OpKind::ep_combine, dispatch);
  if (combine < 0) throw SimulationError("workload: a MoE layer's forward dispatches without a combine");
  u.segment_ends = {at(dispatch), at(after_dispatch(u, dispatch)), at(combine), at(combine + 1)};
}

void mark_backward_segments(Unit& u, int attention_first) {
  const int size = static_cast<int>(u.ops.size());
  const int combine = find_op(u, OpKind::ep_combine, 0);
  if (combine < 0 || combine >= attention_first) {  // dense: the MLP, then attention
    u.segment_ends = {0, at(attention_first), at(attention_first), at(size)};
    return;
  }
  const int dispatch = find_op(u, OpKind::ep_dispatch, combine);
  if (dispatch < 0) throw SimulationError("workload: a MoE layer's backward combines without a dispatch");
  u.segment_ends = {at(combine + 1), at(dispatch), at(after_dispatch(u, dispatch)), at(size)};
}

void delay_weight_gradients(Unit& u) {
  const int size = static_cast<int>(u.ops.size());
  std::vector<int> order(u.ops.size());
  for (int i = 0; i < size; ++i) order[static_cast<std::size_t>(i)] = i;
  const int output = u.output_index();
  // The experts' (or a dense layer's MLP) piece, and the router-and-attention
  // piece, whose last input-gradient op (the unit's output) waits on no
  // weight gradient and so moves ahead of them.
  partition_range(u, u.segment_ends[0], u.segment_ends[1], order);
  partition_range(u, u.segment_ends[2], size, order);
  std::vector<int> position(u.ops.size());
  for (int i = 0; i < size; ++i) position[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = i;
  std::vector<OpTemplate> ops(u.ops.size());
  for (int i = 0; i < size; ++i) {
    OpTemplate t = u.ops[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])];
    for (DepRef& d : t.deps) {
      if (d.kind == DepKind::unit) d.index = static_cast<std::uint16_t>(position[d.index]);
    }
    ops[static_cast<std::size_t>(i)] = t;
  }
  u.ops = std::move(ops);
  u.output = position[static_cast<std::size_t>(output)];
}

}  // namespace pf::models::workload
