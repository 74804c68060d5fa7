// Appends op templates to a Unit with the FLOP and byte estimates of each op
// class, so the layer recipes read as the model's dataflow.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <utility>

#include "models/spec/training_spec.h"
#include "models/workload/eager_kernels.h"
#include "models/workload/op_template.h"

namespace pf::models::workload {

// Sets a GEMM template's shape with its FLOPs (2 batch M N K) and bytes (A,
// B and C read or written once, 16-bit).
void set_gemm_shape(OpTemplate& t, const GemmShape& shape);

// How the framework's kernels look beyond the model's dataflow.
struct KernelStyle {
  // > 0 (fp8 training): HBM bytes per element of quantising a 16-bit GEMM
  // input to fp8 (precision.h, fp8_quantize_bytes).
  double fp8_quantize_bytes = 0;
  Fp8Recipe fp8_recipe = Fp8Recipe::delayed;  // how many kernels a quantisation launches (precision.h)
  // training.fused_elementwise false: elementwise ops run as eager PyTorch's
  // separate kernels (eager_kernels.h) instead of one fused kernel each.
  bool eager_elementwise = false;
  EagerTraits eager;
};

// GEMMs Transformer Engine runs at once on its userbuffers compute streams
// (TP communication overlap): `_NUM_MAX_UB_STREAMS` in TE 1.8's
// pytorch/module/base.py, NVTE_COMM_OVERLAP_MAX_STREAMS in TE 2.9.
inline constexpr std::int64_t kTpOverlapGemmStreams = 3;

class UnitBuilder {
 public:
  UnitBuilder(Phase phase, bool recompute, const KernelStyle& style = {})
      : phase_(phase), recompute_(recompute), style_(style) {}

  // C[M,N] = A[M,K] B[K,N]: 2MNK FLOPs; reads A and B, writes C (16-bit).
  // Under fp8, the forward and input-gradient GEMMs of the linear layers
  // (fp8_linear) are preceded by the kernel that quantises their A operand.
  int gemm(OpKind kind, std::int64_t M, std::int64_t N, std::int64_t K, std::initializer_list<DepRef> deps,
           std::int64_t grad_elems = 0, ParamClass cls = ParamClass::dense) {
    return grouped_gemm(kind, 1, M, N, K, deps, grad_elems, cls);
  }
  // `groups` GEMMs of one shape in one kernel, as a grouped GEMM runs the
  // local experts of a MoE layer (balanced routing: equal shapes).
  int grouped_gemm(OpKind kind, std::int64_t groups, std::int64_t M, std::int64_t N, std::int64_t K,
                   std::initializer_list<DepRef> deps, std::int64_t grad_elems = 0, ParamClass cls = ParamClass::dense);
  // A column-parallel GEMM whose gathered input Transformer Engine's
  // userbuffers ring exchange streams in (TP communication overlap, the
  // `ring_exchange` method of qkv_fprop, fc1_fprop, proj_dgrad, fc2_dgrad):
  // `chunks` (the TP size) GEMMs of M/chunks rows, one per received shard,
  // each on the next of kTpOverlapGemmStreams streams, so that up to that many
  // run at once (TE `CommOverlapP2PBase::split_overlap_ag`). Priced as
  // consecutive groups of concurrent chunks (each group one batched GEMM: the
  // chunks share the SMs in one set of waves), after one fp8 quantisation
  // over all M rows as gemm() prices it (TE casts only the local shard before
  // gathering it, inside the norm under delayed scaling: an overcount the
  // plain path shares). Each group costs the host one issue:
  // TE's C++ loop launches a cuBLAS GEMM, a copy-engine send and receive and
  // their events per chunk. Plain gemm() when M does not divide.
  int ring_exchange_gemm(OpKind kind, std::int64_t chunks, std::int64_t M, std::int64_t N, std::int64_t K,
                         std::initializer_list<DepRef> deps);
  // `batch` independent GEMMs of one shape in one kernel (unfused attention):
  // a grouped GEMM, flagged as recomputation when `recompute`.
  int batched_gemm(OpKind kind, std::int64_t batch, std::int64_t M, std::int64_t N, std::int64_t K,
                   std::initializer_list<DepRef> deps, bool recompute);
  // One attention block: `flops` given by the caller (forward 4 b sq skv h d).
  int attention(OpKind kind, const AttentionShape& shape, double flops, std::initializer_list<DepRef> deps,
                bool recompute = false);
  // Norms and elementwise ops over rows x dim: `tensors` 16-bit tensors of that
  // size read or written, `flops_per_elem` arithmetic per element. With eager
  // elementwise kernels, a chain of the op's eager passes instead (the last
  // one finishes `grad_elems` and is returned).
  int rows(OpKind kind, std::int64_t rows, std::int64_t dim, double tensors, double flops_per_elem,
           std::initializer_list<DepRef> deps, std::int64_t grad_elems = 0, bool recompute = false);
  int collective(OpKind kind, GroupKind group, std::int64_t bytes, std::initializer_list<DepRef> deps);
  // A copy between GPU and host memory (offload_d2h, reload_h2d) of `bytes`:
  // tensor `slot` of the layer (OpTemplate::host_slot).
  int host_copy(OpKind kind, std::int64_t bytes, int slot, std::initializer_list<DepRef> deps);

  // Every op after `last` that waits for an op in [first, last] also waits for
  // `extra` (a gather streamed into those GEMMs: what reads their output
  // needs the whole gather too).
  void also_wait(int first, int last, int extra);

  // The collective `op` runs on the copy engines (OpTemplate::copy_engine).
  void set_copy_engine(int op) { unit_.ops[static_cast<std::size_t>(op)].copy_engine = true; }
  // The op issues `launches` kernels (OpTemplate::launches): host time for
  // each; `inner` more from compiled code inside its call (OpTemplate::inner_launches).
  void set_launches(int op, std::int64_t launches, std::int64_t inner = 0);
  // Ops [first, end) re-run a forward the backward needs (recomputation).
  void mark_recompute(int first, int end);
  // Ops [first, end) belong to a module captured in a CUDA graph.
  void mark_graphed(int first, int end);

  int size() const { return static_cast<int>(unit_.ops.size()); }
  Unit take() { return std::move(unit_); }

 private:
  int push(OpTemplate t, std::initializer_list<DepRef> deps);
  // Under fp8, the kernel(s) quantising a linear GEMM's A operand (groups x M
  // rows of K) before it; -1 when the op takes none.
  int input_quantize(OpKind kind, std::int64_t groups, std::int64_t M, std::int64_t K,
                     std::initializer_list<DepRef> deps);
  int one_pass(OpKind kind, std::int64_t rows, std::int64_t dim, KernelPass pass, std::initializer_list<DepRef> deps,
               std::int64_t grad_elems, bool recompute, bool eager_pass);

  Phase phase_;
  bool recompute_;
  KernelStyle style_;
  Unit unit_;
};

}  // namespace pf::models::workload
