// One operation of a GPU's training iteration, as the workload generator yields
// it: what runs (kind, shape, FLOPs, bytes), where in the model and schedule it
// belongs (phase, layer, micro-batch), on which stream, and what it waits for.
//
// Contract between the generator (GpuProgram) and whoever executes the ops:
//  - Ops come in issue order; every dependency names an earlier op of the same
//    GPU by its id (ids count up from 0 per GPU). An op may start once all its
//    dependencies have completed. The issue order is a topological order.
//  - Compute-stream ops additionally run one at a time, in issue order (a GPU
//    runs one kernel at a time in this model). That ordering is not repeated
//    in the dependency list.
//  - Collectives (comm stream) are matched across GPUs by (group, seq): every
//    member of a group issues the same collectives, of the same kind and size,
//    in the same order, numbered 0, 1, 2... per group. They run in seq order
//    within their group (one NCCL communicator per group); collectives of
//    different groups may overlap each other and compute.
//  - Point-to-point ops (p2p stream) are matched by (sender, receiver, tag):
//    a pp_send on GPU a with peer b and tag t pairs with the pp_recv on b with
//    peer a and tag t. A recv has no dependencies: it is posted early and
//    completes when the data has arrived; the consumer depends on the recv.
//  - `bytes` of a collective is the full buffer per rank as nccl-tests counts
//    it: the all-reduce buffer, the gathered output of an all-gather, the input
//    of a reduce-scatter, the send buffer of an all-to-all, the block each rank
//    passes on in a ring exchange. For a p2p op it is the message size. For a
//    compute op it is an estimate of the HBM bytes read and written.
//  - `flops` counts multiply-adds as 2 FLOPs. Attention counts the full
//    seq x seq score matrix (as Megatron's MFU formula does); `causal` in the
//    shape tells the cost model that only about half of it is computed.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "models/workload/group_id.h"

namespace pf::models::workload {

enum class Phase : std::uint8_t { fwd = 0, bwd = 1, opt = 2 };
// copy: the copy engines moving activations to and from host memory
// (training.cpu_offload_layers), one copy at a time, beside compute.
enum class Stream : std::uint8_t { compute = 0, comm = 1, p2p = 2, copy = 3 };

// What kind of work an op is, for the cost model: which shape fields are valid.
enum class OpClass : std::uint8_t { gemm, attention, norm, elementwise, collective, p2p, host_copy };

// The communication pattern of a comm/p2p op, for the collective layer.
enum class Collective : std::uint8_t {
  none,
  all_reduce,
  all_gather,
  reduce_scatter,
  all_to_all,
  ring_exchange,  // every member sends `bytes` to the next member and receives from the previous
  send,
  recv,
};

// The ops the generator emits. Names (kind_name) feed the timeline's /kinds table.
enum class OpKind : std::uint16_t {
  // compute
  embedding_fwd, embedding_bwd,
  norm_fwd, norm_bwd,
  qkv_fwd, qkv_dgrad, qkv_wgrad,
  attention_fwd, attention_bwd,
  // unfused attention (training.attention: unfused): S = QK^T, P = softmax(S), O = PV, and their gradients
  attn_scores_fwd, attn_softmax_fwd, attn_context_fwd,
  attn_context_dgrad, attn_context_wgrad, attn_softmax_bwd, attn_scores_dgrad, attn_scores_wgrad,
  attn_proj_fwd, attn_proj_dgrad, attn_proj_wgrad,
  mlp_fc1_fwd, mlp_fc1_dgrad, mlp_fc1_wgrad,
  mlp_act_fwd, mlp_act_bwd,
  mlp_fc2_fwd, mlp_fc2_dgrad, mlp_fc2_wgrad,
  residual_fwd, residual_bwd,
  router_fwd, router_dgrad, router_wgrad,
  moe_permute_fwd, moe_permute_bwd, moe_unpermute_fwd, moe_unpermute_bwd,
  // MoE routing arithmetic (score function, top-k, aux loss, token counts) and the reordering of the
  // received tokens by local expert (and back): small kernels launched one by one (moe_units.cpp)
  moe_route_fwd, moe_route_bwd, moe_sort_fwd, moe_sort_bwd,
  // fp8 grouped GEMMs: the received rows copied into (and the outputs out of) per-expert blocks padded to
  // the fp8 GEMM's row alignment, and their gradients back (Transformer Engine's Fp8Padding/Fp8Unpadding)
  moe_pad_fwd, moe_pad_bwd,
  expert_fc1_fwd, expert_fc1_dgrad, expert_fc1_wgrad,
  expert_act_fwd, expert_act_bwd,
  // a clamped gated activation's clamps of its two halves (and their concatenation), and their gradients' masks
  expert_clamp_fwd, expert_clamp_bwd,
  expert_fc2_fwd, expert_fc2_dgrad, expert_fc2_wgrad,
  lm_head_fwd, lm_head_dgrad, lm_head_wgrad,
  loss_fwd, loss_bwd,
  mtp_proj_fwd, mtp_proj_dgrad, mtp_proj_wgrad,  // multi-token prediction: [norm(h); norm(emb)] -> h
  rope_fwd, rope_bwd,  // rotary position embedding applied to Q and K (and its gradient)
  fp8_quantize,  // fp8 training: the 16-bit GEMM input cast to fp8 (and its transpose) before an fp8 GEMM
  optimizer_step,
  // a micro-batch's weight gradients added into the fp32 main gradients by kernels of their own
  // (training.main_grad_accumulation: add, cast_add)
  main_grad_accumulate,
  // collectives
  tp_all_reduce, tp_all_gather, tp_reduce_scatter,
  cp_kv_exchange,
  ep_dispatch, ep_combine,
  ep_count_gather,  // every EP rank's per-expert token counts, all-gathered before the dispatch
  ep_probs_exchange,  // the routing probabilities' all-to-all beside the tokens' (and its gradient's)
  dp_grad_all_reduce, dp_grad_reduce_scatter, dp_param_all_gather,
  embedding_grad_all_reduce,
  // point to point
  pp_send, pp_recv,
  // activation offloading (training.cpu_offload_layers): a layer's saved tensors to host memory and back
  offload_d2h, reload_h2d,
  // imported workloads (SimAI/AICB files): measured compute and generic collectives
  imported_fwd, imported_input_grad, imported_weight_grad,
  imported_all_reduce, imported_all_gather, imported_reduce_scatter, imported_all_to_all,
  count_  // number of kinds, not a kind
};

inline constexpr int kOpKindCount = static_cast<int>(OpKind::count_);

std::string_view kind_name(OpKind kind);
OpClass op_class(OpKind kind);
Collective collective_of(OpKind kind);
Stream stream_of(OpKind kind);
// GEMMs and attention: the work that counts towards model/hardware FLOPs.
bool is_matmul(OpKind kind);
// The GEMMs FP8 recipes run in fp8: the transformer layers' linear layers.
// The LM head (Megatron's output layer is not a TE layer; torchtitan's Float8
// skips "output"), the router and attention's batched GEMMs stay in bf16.
bool fp8_linear(OpKind kind);
// Those of them whose A operand is quantised just before (forward: the layer
// input; input gradient: the output gradient). Weight-gradient GEMMs read the
// transposed fp8 copies those kernels also wrote.
bool quantizes_input(OpKind kind);

// Shapes the cost model reads; only the part matching op_class() is filled.
struct GemmShape {
  std::int64_t M = 0, N = 0, K = 0;  // C[M,N] = A[M,K] * B[K,N]
  std::int64_t batch = 1;            // independent GEMMs of this shape in one kernel
  bool operator==(const GemmShape&) const = default;
};
struct AttentionShape {
  std::int64_t batch = 0, seq = 0, heads = 0, kv_heads = 0, head_dim = 0;  // heads per GPU
  bool causal = true;
  std::int64_t window = 0;  // sliding window: keys before the diagonal a query sees; 0 = all
  bool operator==(const AttentionShape&) const = default;
};
struct RowsShape {
  std::int64_t rows = 0, dim = 0;  // norms and elementwise ops over rows x dim
  bool eager_pass = false;         // one kernel of an eager decomposition: priced from its flops and bytes
  bool operator==(const RowsShape&) const = default;
};
struct OpShape {
  GemmShape gemm;
  AttentionShape attention;
  RowsShape rows;
  // Field by field: the structs have padding, which memcmp would compare.
  bool operator==(const OpShape&) const = default;
};

inline constexpr std::uint32_t kNoOp = 0xffffffffu;
inline constexpr int kMaxDeps = 4;

struct Op {
  std::uint32_t id = kNoOp;
  OpKind kind = OpKind::norm_fwd;
  Phase phase = Phase::fwd;
  Stream stream = Stream::compute;
  bool recompute = false;        // re-executed forward work (activation recomputation)
  std::int32_t layer = -1;       // global transformer layer; -1 for embedding, head, optimizer
  std::int32_t microbatch = -1;  // -1 outside a micro-batch (optimizer, gradient sync)
  std::int16_t chunk = -1;       // model chunk on this pipeline rank (interleaving), -1 if none
  double flops = 0;
  std::uint64_t bytes = 0;
  GroupId group;                 // collectives and p2p (the pp group); none for compute
  std::uint32_t seq = 0;         // collectives: index within `group`; p2p: the message tag
  std::int32_t peer = -1;        // p2p: the GPU at the other end
  OpShape shape;
  std::uint8_t dep_count = 0;
  // Host issues the op costs: kernels the framework launches for it one by
  // one (a TE GroupedLinear runs one cuBLAS GEMM per local expert; a router's
  // top-k and aux-loss arithmetic is a dozen small kernels priced as one op).
  std::uint16_t launches = 1;
  // Kernels the op's one framework call launches from compiled code, beyond
  // `launches` (Transformer Engine's split_quantize casts a grouped GEMM's
  // inputs expert by expert in a C++ loop): each costs a compiled launch
  // (training.host_inner_launch_us), not a framework op's issue.
  std::uint16_t inner_launches = 0;
  // Part of a module captured in a CUDA graph (training.cuda_graph_scope):
  // its launches cost the graph's per-kernel time, not an eager issue.
  bool graphed = false;
  // A collective moved by the GPU's copy engines (Transformer Engine's
  // userbuffers ring exchange under TP communication overlap): it takes no
  // SMs from the compute beside it (no NCCL channels).
  bool copy_engine = false;
  // Ops made from an op template (op_template.h): the template's plan-wide
  // index (WorkloadPlan::template_index). Every instance of a template has the
  // same kind, shape, FLOPs and bytes, so its price is memoised by this index
  // (OpPricer). kNoOp for ops built otherwise (communication, the optimizer
  // step, imported ops).
  std::uint32_t template_index = kNoOp;
  std::array<std::uint32_t, kMaxDeps> deps{};
  // Compute ops of imported workloads: the measured duration; < 0 (built-in
  // workloads): priced by the compute cost model from kind and shape.
  double seconds = -1;
};

// Sets op to a default-constructed Op. Program cursors reset every op they
// emit, one per kernel: `op = Op{}` compiles (GCC 12, -O3) to a string store
// (rep stosq) whose start-up cost exceeded the rest of the op's emission in
// perf profiles; this copies a blank op with vector moves.
void reset(Op& op);

}  // namespace pf::models::workload
