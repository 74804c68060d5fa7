#include "models/workload/unit_builder.h"

#include <algorithm>

#include "core/error.h"
#include "models/workload/precision.h"

namespace pf::models::workload {

void set_gemm_shape(OpTemplate& t, const GemmShape& g) {
  t.shape.gemm = g;
  t.flops = 2.0 * static_cast<double>(g.batch) * static_cast<double>(g.M) * static_cast<double>(g.N) *
            static_cast<double>(g.K);
  t.bytes = static_cast<std::uint64_t>(2 * g.batch * (g.M * g.K + g.K * g.N + g.M * g.N));
}

int UnitBuilder::push(OpTemplate t, std::initializer_list<DepRef> deps) {
  if (deps.size() > kMaxTemplateDeps) throw SimulationError("workload: an op template lists too many dependencies");
  t.phase = phase_;
  t.recompute = t.recompute || recompute_;
  int i = 0;
  for (DepRef d : deps) t.deps[static_cast<std::size_t>(i++)] = d;
  unit_.ops.push_back(t);
  return size() - 1;
}

int UnitBuilder::input_quantize(OpKind kind, std::int64_t groups, std::int64_t M, std::int64_t K,
                                std::initializer_list<DepRef> deps) {
  if (style_.fp8_quantize_bytes <= 0 || !quantizes_input(kind)) return -1;
  const int quantize = rows(OpKind::fp8_quantize, groups * M, K, style_.fp8_quantize_bytes / 2.0, 1, deps);
  // One framework call (TE's quantize / split_quantize); its kernels beyond the
  // first are launched by TE's C++ loop (precision.h, fp8_quantize_kernels).
  set_launches(quantize, 1, fp8_quantize_kernels(style_.fp8_recipe, groups) - 1);
  return quantize;
}

int UnitBuilder::grouped_gemm(OpKind kind, std::int64_t groups, std::int64_t M, std::int64_t N, std::int64_t K,
                              std::initializer_list<DepRef> deps, std::int64_t grad_elems, ParamClass cls) {
  const int quantize = input_quantize(kind, groups, M, K, deps);
  OpTemplate t;
  t.kind = kind;
  set_gemm_shape(t, {M, N, K, groups});
  t.grad_elems = grad_elems;
  t.grad_class = cls;
  return quantize >= 0 ? push(t, {DepRef::op(quantize)}) : push(t, deps);
}

int UnitBuilder::ring_exchange_gemm(OpKind kind, std::int64_t chunks, std::int64_t M, std::int64_t N,
                                    std::int64_t K, std::initializer_list<DepRef> deps) {
  if (chunks <= 1 || M % chunks != 0) return gemm(kind, M, N, K, deps);
  int last = input_quantize(kind, 1, M, K, deps);
  for (std::int64_t first = 0; first < chunks; first += kTpOverlapGemmStreams) {
    OpTemplate t;
    t.kind = kind;
    set_gemm_shape(t, {M / chunks, N, K, std::min(kTpOverlapGemmStreams, chunks - first)});
    last = last >= 0 ? push(t, {DepRef::op(last)}) : push(t, deps);
  }
  return last;
}

int UnitBuilder::batched_gemm(OpKind kind, std::int64_t batch, std::int64_t M, std::int64_t N, std::int64_t K,
                              std::initializer_list<DepRef> deps, bool recompute) {
  const int op = grouped_gemm(kind, batch, M, N, K, deps);  // attention's batched GEMMs are never fp8: one op
  unit_.ops[static_cast<std::size_t>(op)].recompute |= recompute;
  return op;
}

int UnitBuilder::attention(OpKind kind, const AttentionShape& shape, double flops,
                           std::initializer_list<DepRef> deps, bool recompute) {
  OpTemplate t;
  t.kind = kind;
  t.shape.attention = shape;
  t.flops = flops;
  t.recompute = recompute;
  // Fused (flash) attention streams Q, K, V and O once; backward also reads O
  // and dO and writes dQ, dK, dV: about twice the traffic.
  std::int64_t q = shape.batch * shape.seq * shape.heads * shape.head_dim;
  std::int64_t kv = shape.batch * shape.seq * shape.kv_heads * shape.head_dim;
  std::int64_t fwd = 2 * (2 * q + 2 * kv);
  t.bytes = static_cast<std::uint64_t>(kind == OpKind::attention_bwd ? 2 * fwd : fwd);
  return push(t, deps);
}

int UnitBuilder::rows(OpKind kind, std::int64_t rows, std::int64_t dim, double tensors, double flops_per_elem,
                      std::initializer_list<DepRef> deps, std::int64_t grad_elems, bool recompute) {
  const std::span<const KernelPass> passes =
      style_.eager_elementwise ? eager_passes(kind, style_.eager) : std::span<const KernelPass>();
  if (passes.empty()) return one_pass(kind, rows, dim, {tensors, flops_per_elem}, deps, grad_elems, recompute, false);
  int last = one_pass(kind, rows, dim, passes.front(), deps, passes.size() == 1 ? grad_elems : 0, recompute, true);
  for (std::size_t i = 1; i < passes.size(); ++i) {
    const std::int64_t grads = i + 1 == passes.size() ? grad_elems : 0;
    last = one_pass(kind, rows, dim, passes[i], {DepRef::op(last)}, grads, recompute, true);
  }
  return last;
}

int UnitBuilder::one_pass(OpKind kind, std::int64_t rows, std::int64_t dim, KernelPass pass,
                          std::initializer_list<DepRef> deps, std::int64_t grad_elems, bool recompute,
                          bool eager_pass) {
  OpTemplate t;
  t.kind = kind;
  t.recompute = recompute;
  t.shape.rows = {rows, dim, eager_pass};
  double elems = static_cast<double>(rows) * static_cast<double>(dim);
  t.flops = elems * pass.flops_per_elem;
  t.bytes = static_cast<std::uint64_t>(elems * pass.tensors * 2.0);
  t.grad_elems = grad_elems;
  return push(t, deps);
}

void UnitBuilder::also_wait(int first, int last, int extra) {
  for (int i = last + 1; i < size(); ++i) {
    OpTemplate& t = unit_.ops[static_cast<std::size_t>(i)];
    bool reads = false, has = false;
    int used = 0;
    for (const DepRef& d : t.deps) {
      if (d.kind == DepKind::none) continue;
      ++used;
      if (d.kind == DepKind::unit && d.index >= first && d.index <= last) reads = true;
      if (d.kind == DepKind::unit && d.index == extra) has = true;
    }
    if (!reads || has) continue;
    if (used >= kMaxTemplateDeps) throw SimulationError("workload: an op template lists too many dependencies");
    t.deps[static_cast<std::size_t>(used)] = DepRef::op(extra);
  }
}

void UnitBuilder::mark_recompute(int first, int end) {
  for (int i = first; i < end; ++i) unit_.ops[static_cast<std::size_t>(i)].recompute = true;
}

void UnitBuilder::mark_graphed(int first, int end) {
  for (int i = first; i < end; ++i) unit_.ops[static_cast<std::size_t>(i)].graphed = true;
}

void UnitBuilder::set_launches(int op, std::int64_t launches, std::int64_t inner) {
  if (launches < 1 || launches > 0xffff) throw SimulationError("workload: an op's kernel launches must be in [1, 65535]");
  if (inner < 0 || inner > 0xffff) throw SimulationError("workload: an op's inner launches must be in [0, 65535]");
  OpTemplate& t = unit_.ops[static_cast<std::size_t>(op)];
  t.launches = static_cast<std::uint16_t>(launches);
  t.inner_launches = static_cast<std::uint16_t>(inner);
}

int UnitBuilder::collective(OpKind kind, GroupKind group, std::int64_t bytes, std::initializer_list<DepRef> deps) {
  OpTemplate t;
  t.kind = kind;
  t.group = group;
  t.bytes = static_cast<std::uint64_t>(bytes);
  return push(t, deps);
}

int UnitBuilder::host_copy(OpKind kind, std::int64_t bytes, int slot, std::initializer_list<DepRef> deps) {
  OpTemplate t;
  t.kind = kind;
  t.bytes = static_cast<std::uint64_t>(bytes);
  t.host_slot = static_cast<std::int8_t>(slot);
  return push(t, deps);
}

}  // namespace pf::models::workload
