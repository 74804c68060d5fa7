#include "models/workload/op_selective_recompute.h"

#include <algorithm>
#include <vector>

namespace pf::models::workload {
namespace {

bool kept_by_policy(OpKind kind) {
  switch (kind) {
    case OpKind::attention_fwd:
    case OpKind::attn_scores_fwd:
    case OpKind::attn_softmax_fwd:
    case OpKind::attn_context_fwd:
    case OpKind::cp_kv_exchange:     // only feeds the (kept) attention
    case OpKind::tp_reduce_scatter:  // reduce_scatter_tensor is in the list
      return true;
    default:
      return false;
  }
}

// The output columns of each nn.Linear call a forward GEMM op stands for, in
// call order (preflight fuses Q/K/V and gate/up into one GEMM each).
std::vector<std::int64_t> linear_calls(const OpTemplate& t, const RecipeContext& c) {
  const LocalDims& d = c.d;
  switch (t.kind) {
    case OpKind::qkv_fwd: return {d.q_dim_local, d.k_dim_local, d.v_dim_local};
    case OpKind::mlp_fc1_fwd:
      if (c.arch.gated_mlp) return {d.ffn_local, d.ffn_local};
      return {t.shape.gemm.N};
    case OpKind::attn_proj_fwd:
    case OpKind::mlp_fc2_fwd: return {t.shape.gemm.N};
    default: return {};
  }
}

}  // namespace

Unit op_selective_recompute_unit(const RecipeContext& c) {
  const Unit forward = layer_recompute_unit(c, false);
  const std::size_t n = forward.ops.size();
  // For each forward op: its index in the new unit, or (dropped) the new ops
  // whatever waited on it waits on instead.
  std::vector<int> index(n, -1);
  std::vector<std::vector<DepRef>> instead(n);
  Unit out;
  out.param_elems = forward.param_elems;
  out.passes_input = false;
  int matmuls = 0;
  for (std::size_t i = 0; i < n; ++i) {
    OpTemplate t = forward.ops[i];
    bool keep = !kept_by_policy(t.kind);
    const std::vector<std::int64_t> calls = linear_calls(t, c);
    if (!calls.empty()) {
      std::int64_t columns = 0;
      for (std::int64_t w : calls) {
        if (++matmuls % 2 == 0) columns += w;
      }
      if (columns == 0) keep = false;
      if (keep && columns != t.shape.gemm.N) {
        GemmShape narrowed = t.shape.gemm;
        narrowed.N = columns;
        set_gemm_shape(t, narrowed);
      }
    }
    std::vector<DepRef> deps;
    auto add = [&deps](DepRef d) {
      auto same = [d](DepRef e) { return e.kind == d.kind && e.index == d.index; };
      if (std::none_of(deps.begin(), deps.end(), same)) deps.push_back(d);
    };
    for (DepRef d : t.deps) {
      if (d.kind == DepKind::none) continue;
      if (d.kind != DepKind::unit) {
        add(d);
      } else if (index[d.index] >= 0) {
        add(DepRef::op(index[d.index]));
      } else {
        for (DepRef e : instead[d.index]) add(e);
      }
    }
    if (!keep) {
      instead[i] = std::move(deps);
      continue;
    }
    // Three at most: parameter gathers first, then the latest ops. The
    // compute stream runs in issue order, so an earlier compute op is done
    // before a later one starts.
    std::sort(deps.begin(), deps.end(), [](DepRef a, DepRef b) {
      if (a.kind != b.kind) return a.kind != DepKind::unit;
      return a.index > b.index;
    });
    t.deps = {};
    for (std::size_t k = 0; k < deps.size() && k < kMaxTemplateDeps; ++k) t.deps[k] = deps[k];
    index[i] = static_cast<int>(out.ops.size());
    out.ops.push_back(t);
  }
  return out;
}

}  // namespace pf::models::workload
