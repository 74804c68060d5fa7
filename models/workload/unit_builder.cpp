#include "models/workload/unit_builder.h"

#include "core/error.h"

namespace pf::models::workload {

int UnitBuilder::push(OpTemplate t, std::initializer_list<DepRef> deps) {
  if (deps.size() > kMaxTemplateDeps) throw SimulationError("workload: an op template lists too many dependencies");
  t.phase = phase_;
  t.recompute = t.recompute || recompute_;
  int i = 0;
  for (DepRef d : deps) t.deps[static_cast<std::size_t>(i++)] = d;
  unit_.ops.push_back(t);
  return size() - 1;
}

int UnitBuilder::gemm(OpKind kind, std::int64_t M, std::int64_t N, std::int64_t K,
                      std::initializer_list<DepRef> deps, std::int64_t grad_elems, ParamClass cls) {
  int quantize = -1;
  if (fp8_quantize_bytes_ > 0 && quantizes_input(kind)) {
    quantize = rows(OpKind::fp8_quantize, M, K, fp8_quantize_bytes_ / 2.0, 1, deps);
  }
  OpTemplate t;
  t.kind = kind;
  t.shape.gemm = {M, N, K};
  t.flops = 2.0 * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  t.bytes = static_cast<std::uint64_t>(2 * (M * K + K * N + M * N));
  t.grad_elems = grad_elems;
  t.grad_class = cls;
  return quantize >= 0 ? push(t, {DepRef::op(quantize)}) : push(t, deps);
}

int UnitBuilder::batched_gemm(OpKind kind, std::int64_t batch, std::int64_t M, std::int64_t N, std::int64_t K,
                              std::initializer_list<DepRef> deps, bool recompute) {
  OpTemplate t;
  t.kind = kind;
  t.shape.gemm = {M, N, K, batch};
  t.flops = 2.0 * static_cast<double>(batch) * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
  t.bytes = static_cast<std::uint64_t>(2 * batch * (M * K + K * N + M * N));
  t.recompute = recompute;
  return push(t, deps);
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
  OpTemplate t;
  t.kind = kind;
  t.recompute = recompute;
  t.shape.rows = {rows, dim};
  double elems = static_cast<double>(rows) * static_cast<double>(dim);
  t.flops = elems * flops_per_elem;
  t.bytes = static_cast<std::uint64_t>(elems * tensors * 2.0);
  t.grad_elems = grad_elems;
  return push(t, deps);
}

int UnitBuilder::collective(OpKind kind, GroupKind group, std::int64_t bytes, std::initializer_list<DepRef> deps) {
  OpTemplate t;
  t.kind = kind;
  t.group = group;
  t.bytes = static_cast<std::uint64_t>(bytes);
  return push(t, deps);
}

}  // namespace pf::models::workload
