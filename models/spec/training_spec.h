// How the model is trained and split (io/config/README.md: parallelism, training).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/spec/hardware_spec.h"

namespace pf::models {

enum class PipelineSchedule { one_f_one_b, interleaved };
// Activation recomputation: Megatron's selective (the core attention re-run,
// Korthikanti et al. 2022) and full (every layer's forward re-run), and
// torchtitan's op-level selective checkpointing, selective_op: the outputs of
// every other matmul of a block and of attention are kept, everything else of
// the block's forward re-runs in its backward (models/workload/README.md).
enum class Recompute { none, selective, full, selective_op };
// How full recomputation places its checkpoints in a virtual pipeline chunk
// (Megatron-Core's --recompute-method with --recompute-num-layers N): block
// re-runs the chunk's first N layers one by one and keeps the others' whole
// activations; uniform re-runs every layer, N at a time, keeping one input per
// group of N (transformer_block.py, _checkpointed_forward).
enum class RecomputeMethod { block, uniform };
// What Megatron's selective recomputation re-runs (Megatron-Core's
// --recompute-modules, transformer_config.py; default core_attn). core_attn
// checkpoints the core attention; layernorm, moe_act and mla_up_proj discard
// their module's output after the forward and rebuild it in the backward,
// where the next module's backward first reads it ("output-discarding"
// checkpointing): the input and pre-MLP norms, the routed experts' activation
// function, MLA's query/key/value up-projections with their rotary part.
// mlp, moe and shared_experts checkpoint a whole submodule (the dense MLP,
// the MoE layer with its router, dispatch and shared experts, the shared
// experts alone): it keeps only its input and re-runs its forward before
// its backward.
// A bit set of RecomputeModules::Module; read only with Recompute::selective.
struct RecomputeModules {
  enum Module : std::uint8_t {
    core_attn = 1,
    layernorm = 2,
    moe_act = 4,
    mla_up_proj = 8,
    mlp = 16,
    moe = 32,
    shared_experts = 64,
  };
  std::uint8_t modules = core_attn;
  bool has(Module m) const { return (modules & m) != 0; }
};
// Megatron-Core's fine-grained activation offloading
// (--fine-grained-activation-offloading --offload-modules): the input a
// module keeps for its backward goes to host memory after its forward and
// comes back before its backward. A bit set of OffloadModules::Module; the
// routed experts' two modules are modelled (Megatron-Core also offers
// attn_norm, qkv_linear, core_attn, attn_proj and mlp_norm).
struct OffloadModules {
  enum Module : std::uint8_t {
    expert_fc1 = 1,  // the routed experts' fc1 input (the dispatched tokens)
    moe_act = 2,     // the routed experts' activation input (fc1's output)
  };
  std::uint8_t modules = 0;
  bool has(Module m) const { return (modules & m) != 0; }
  bool any() const { return modules != 0; }
};
// The attention kernel (training.attention): AttentionKernel, models/spec/hardware_spec.h.
// How the framework issues kernels (models/training/README.md, host model).
enum class KernelLaunch { eager, cuda_graph };
// Per-module CUDA graphs in an eager step (Megatron-Core's --cuda-graph-impl
// transformer_engine with --cuda-graph-scope; Megatron-LM PR #1917): the
// kernels of each captured module, forward and backward, replay from a graph
// at the graph's per-kernel cost; everything else is issued eagerly. A bit
// set of CudaGraphScope::Module.
struct CudaGraphScope {
  enum Module : std::uint8_t {
    attn = 1,            // TransformerLayer._forward_attention: input norm .. attention's residual add
    mlp = 2,             // _forward_mlp of a dense layer: norm .. residual add
    moe_router = 4,      // a MoE layer's _forward_mlp up to and including the router's routing
    moe_preprocess = 8,  // the token dispatcher's preprocess (token counts and their all-gather)
    moe = 16,            // a whole MoE layer (fixed-capacity dispatch)
  };
  std::uint8_t modules = 0;
  bool has(Module m) const { return (modules & m) != 0; }
  bool any() const { return modules != 0; }
};
// Megatron-Core's --moe-token-dispatcher-type: alltoall (NCCL all-to-alls of
// the tokens and, beside them, of their routing probabilities and token
// counts) or flex (DeepEP / HybridEP fused dispatch kernels: probabilities and
// routing metadata travel inside the dispatch, the layout is computed on the
// GPU, and tokens arrive grouped by expert).
enum class MoeTokenDispatcher { alltoall, flex };
// Megatron-Core's --moe-flex-dispatcher-backend, with the flex dispatcher:
// DeepEP, or HybridEP, whose dispatch also pads each local expert's rows to
// the fp8 GEMMs' alignment under fp8 (token_dispatcher.py _HybridEPManager,
// pad_multiple), so the experts need no padded copies.
enum class MoeFlexBackend { deepep, hybridep };
// Where the reported loss is averaged over the data-parallel replicas: once per
// step after the last micro-batch (step: Megatron-LM from core_r0.11 on,
// Megatron-Bridge's train_step), or by an all-reduce at every micro-batch's
// loss that the backward waits for (microbatch: Megatron-LM to core_r0.10,
// pretrain_gpt.py loss_func `all_reduce(reporting_loss, data_parallel_group)`;
// Megatron-LM 2020's reduce_losses over every GPU), which keeps the replicas
// in lockstep within every micro-batch.
enum class LossReduce { step, microbatch };
// When the compute stream waits for a pipeline send to complete (an NCCL send
// finishes only once the receiving stage has posted its receive):
//  - blocking: before the next kernel (DeepSpeed's PipelineEngine, dist.send;
//    Megatron-Core's non-interleaved 1F1B: p2p_communication._communicate
//    waits on its requests, wait_on_reqs);
//  - deferred: before the kernel after the next send in the same direction
//    (Megatron-Core's interleaved schedule with overlap_p2p_comm waits on a
//    send's handle once it has posted the following one: schedules.py
//    send_next_wait_handle / send_prev_wait_handle);
//  - background: never within the step (torch.distributed.pipelining waits
//    on its sends at the step's end);
//  - automatic: Megatron-Core's, blocking with one model chunk per stage,
//    deferred with the interleaved schedule.
enum class PpSendWait { automatic, blocking, deferred, background };
enum class CrossEntropyFusionImpl { native, te };
// How each micro-batch's weight gradients reach the fp32 main gradients
// (models/compute/README.md, "Main-gradient accumulation"). fused: the
// weight-gradient GEMM accumulates into them (Megatron-Core's default
// --gradient-accumulation-fusion, Transformer Engine's fuse_wgrad_accumulation):
// no kernel of its own. add: Megatron's grad hook without the fusion,
// main_grad.add_(grad), one kernel per parameter tensor reading the 16-bit
// gradient and the fp32 main gradient and writing it back (10 bytes per
// parameter). cast_add: DeepSpeed's BF16_Optimizer.update_hp_grads after each
// micro-batch's backward, hp_grad.add_(lp_grad.to(float32)): a cast kernel
// (2 bytes read, 4 written) and an add (8 read, 4 written) per tensor, 18
// bytes per parameter.
enum class MainGradAccumulation { fused, add, cast_add };
// The precision of main gradients (accumulated and reduced over DP). auto is
// Megatron-LM's default for the training dtype: fp32 for bf16 (and fp8, whose
// weights are bf16; megatron/training/arguments.py: "bfloat16 requires
// gradient accumulation and all-reduce to be done in fp32"), the training
// dtype for fp16 (accumulate_allreduce_grads_in_fp32 stays off).
enum class GradReduceDtype { automatic, fp32, bf16, fp16 };
// What Adam keeps per parameter beside the weights: a master copy under mixed
// precision and the two moments, each at its own precision. The defaults are
// fp32 throughout (12 bytes per parameter with 16-bit weights). Megatron-Core's
// precision-aware optimizer (--use-precision-aware-optimizer with
// --main-params-dtype, --exp-avg-dtype, --exp-avg-sq-dtype; Transformer
// Engine's FusedAdam) lowers them; with bf16 weights and an fp32 master copy it
// keeps only the 16 bits the bf16 weight lacks (store_param_remainders, on by
// default since TE 2.1), as Apex's DistributedFusedAdam does under NeMo
// (megatron_base_model.py: store_param_remainders when the optimizer is fp32
// and the model bf16). fp8 moments are one byte (TE: uint8 with a scale).
enum class StateDtype { fp32, bf16, fp16, fp8 };
struct OptimizerStates {
  StateDtype main_params = StateDtype::fp32;  // the master weights (mixed precision only)
  bool param_remainders = false;              // fp32 master kept as 16-bit remainders of bf16 weights
  StateDtype exp_avg = StateDtype::fp32;      // Adam's first moment
  StateDtype exp_avg_sq = StateDtype::fp32;   // Adam's second moment
};
// The collective that reduces the main gradients over DP. auto: an all-reduce
// under ZeRO 0, a reduce-scatter into each rank's shard under ZeRO 1-3
// (Megatron-Core's distributed optimizer). all_reduce with a sharded optimizer
// is DeepSpeed's BF16_Optimizer (the pipeline engine all-reduces the whole
// fp32 gradient, then each rank updates its shard and all-gathers the
// parameters: runtime/pipe/engine.py _exec_reduce_grads, bf16_optimizer.py
// get_grads_for_reduction) and ZeRO 1/2's `reduce_scatter: false`.
enum class GradReduceCollective { automatic, reduce_scatter, all_reduce };
// How fp8 training scales its tensors (Megatron-LM's --fp8-recipe names):
// delayed (scale from an amax history, recorded by the cast itself; the
// default), tensorwise (current scaling: the tensor's amax is reduced in a
// pass of its own before the cast), mxfp8 (per-32-element scales, Blackwell),
// blockwise (1x128 / 128x128 scales). Decides the quantisation kernels' bytes.
enum class Fp8Recipe { delayed, tensorwise, mxfp8, blockwise };

// Host time per kernel launch or NCCL call on an x86 host, microseconds, by
// launch mode (hardware.node.host_overhead_scale scales it for other hosts).
// eager: what a kernel costs the host inside an eager Megatron-Core training
// step (Python module code, Transformer Engine's module wrappers, autograd,
// dispatch, the launch itself), not the bare cudaLaunchKernel
// (HolisticTraceAnalysis: 5-20 us). Calibrated on a measured host-bound run
// (models/compute/README.md, "The host"): Megatron-Bridge 26.02's Qwen3-30B-A3B
// on one DGX B200 at micro-batch 1 (9,691 tokens/s/GPU; 2.8x slower per token
// than the same GPUs and model at micro-batch 4 with HybridEP, so its GPUs wait
// on the host) is reproduced at 55 us per kernel, with the casts TE launches
// inside one call at kInnerLaunchHostUs; held out, the same tables' 25.09
// Qwen3-235B-A22B on 64 B200 (eager, token drop) comes within 3.2 %, and two
// other measured Qwen3-30B runs (B200 at micro-batch 4, 16 H100) stay slower
// than predicted (tests/validation/host_calibration_check.py). Plain torch modules cost
// less: an autograd step of Linear + GELU layers took 45.1 us per kernel on
// a virtualised Xeon where F.linear took 21.9 (configs/calibration/h200/
// measured/host.csv) and 13.48 us on a DGX H100's Xeon 8480C (Transformer
// Engine issue #2053): 27.8 us; that te.Linear forward costs 2.7x a
// torch.nn.Linear's on a Grace host. cuda_graph: ~1.3 us per kernel replayed
// from a graph (RRZE-HPC/gpu-benches gpu-small-kernels, A100 and H200 with -graph).
inline constexpr double kEagerHostOverheadUs = 55.0;
inline constexpr double kCudaGraphHostOverheadUs = 1.3;
// Host time of a kernel that compiled code launches inside one framework call
// on an x86 host, microseconds: Transformer Engine v2.9's split_quantize casts
// a grouped GEMM's inputs expert by expert in a C++ loop (csrc/extensions/
// cast.cpp, multi_tensor_quantize_impl), so those casts cost a launch and TE's
// per-tensor setup, not a module call (models/compute/README.md, "The host").
// Calibrated on a measured pair that differs only in those casts:
// Megatron-Bridge 25.09 ran Qwen3-235B-A22B on 64 B200 (PP 8, EP 8, token
// drop, eager) at 4,104 tokens/s/GPU under fp8 current scaling and 4,275 under
// MXFP8, 0.64 s a step for current scaling's amax kernel beside every expert's
// cast (2 kernels per expert against 1); 6 us reproduces the difference (0.63 s).
inline constexpr double kInnerLaunchHostUs = 6.0;

struct ParallelismSpec {
  int tp = 1;
  int pp = 1;
  int dp = 1;
  int cp = 1;
  int ep = 1;                           // carved out of dp (x cp x tp when expert_tp < tp)
  // Expert tensor parallelism (Megatron-Core's --expert-tensor-parallel-size,
  // "MoE parallel folding"): 0 = tp (experts sharded like the dense layers,
  // EP groups stride over the TP groups). 1: whole experts, and the EP groups
  // are laid out over consecutive ranks of the stage (etp x ep x edp, etp
  // fastest), so an EP group of up to a server's GPUs stays inside it.
  int expert_tp = 0;
  int etp() const { return expert_tp > 0 ? expert_tp : tp; }
  bool sequence_parallel = false;
  PipelineSchedule pipeline_schedule = PipelineSchedule::one_f_one_b;
  int virtual_stages = 1;
  // Model chunks per pipeline rank: virtual_stages under the interleaved schedule, else 1.
  int chunks() const {
    return pipeline_schedule == PipelineSchedule::interleaved && virtual_stages > 1 ? virtual_stages : 1;
  }
  int zero_stage = 0;                   // 0..3
  std::vector<int> layers_per_stage;    // empty = spread evenly; else pp*virtual_stages entries
};

struct TrainingSpec {
  std::int64_t global_batch_size = 1;   // sequences
  std::int64_t micro_batch_size = 1;
  std::int64_t seq_length = 2048;
  Recompute recompute = Recompute::none;
  RecomputeModules recompute_modules;   // with recompute: selective
  // What selective recomputation re-runs: recompute_modules, none without it.
  RecomputeModules selective_modules() const {
    return recompute == Recompute::selective ? recompute_modules : RecomputeModules{0};
  }
  bool recomputes(RecomputeModules::Module m) const { return selective_modules().has(m); }
  // With recompute: full, how many layers of each virtual pipeline chunk are
  // recomputed, the chunk's first ones (Megatron-Core's --recompute-method
  // block --recompute-num-layers); the others keep their activations. 0 = all.
  int recompute_num_layers = 0;
  // block (above) or uniform: every layer re-runs, in groups of
  // recompute_num_layers (0 counts as 1) that share one checkpointed input.
  RecomputeMethod recompute_method = RecomputeMethod::block;
  // How many of each chunk's first layers the block method re-runs; 0 = all.
  int block_limit() const {
    return recompute == Recompute::full && recompute_method == RecomputeMethod::block ? recompute_num_layers : 0;
  }
  // The recomputation that layer `index_in_chunk` (0-based, within its
  // virtual pipeline chunk) runs: `recompute`, or none past the block limit.
  Recompute layer_recompute(int index_in_chunk) const {
    return block_limit() > 0 && index_in_chunk >= block_limit() ? Recompute::none : recompute;
  }
  // Of a chunk's `chunk_layers` layers, how many full recomputation re-runs.
  int recomputed_layers(int chunk_layers) const {
    return block_limit() > 0 ? std::min(block_limit(), chunk_layers) : chunk_layers;
  }
  // Layers re-run together from one checkpointed input: 1 except under
  // uniform full recomputation.
  int recompute_group() const {
    const bool uniform = recompute == Recompute::full && recompute_method == RecomputeMethod::uniform;
    return uniform ? std::max(1, recompute_num_layers) : 1;
  }
  Dtype dtype = Dtype::bf16;
  bool overlap_grad_reduce = true;
  bool overlap_param_gather = true;
  // DP gradient bucket, MiB; 0 = auto, Megatron-Core's DDP default of
  // max(40M, 1M x dp x cp) parameters (distributed_data_parallel_config.py,
  // "larger DP sizes need larger buckets to ensure collectives do not become
  // latency-bound"), at the main-gradient precision.
  double grad_bucket_mb = 0;
  AttentionKernel attention = AttentionKernel::flash;
  // Megatron's --cross-entropy-loss-fusion (off by default): the fp32 passes of
  // vocab_parallel_cross_entropy as jit-fused regions (models/workload/edge_units.cpp).
  bool fused_cross_entropy = false;
  // With it, Megatron-Core's --cross-entropy-fusion-impl: native (those jit-
  // fused fp32 regions) or te (Transformer Engine's Triton cross entropy over
  // the 16-bit logits, its gradient written in place during the forward).
  CrossEntropyFusionImpl cross_entropy_fusion_impl = CrossEntropyFusionImpl::native;
  // Elementwise ops fused into one kernel each (Megatron-Core's fused
  // kernels, torch.compile), or run as eager PyTorch's separate kernels.
  bool fused_elementwise = true;
  // Megatron's --tp-comm-overlap (Transformer Engine userbuffers; needs
  // sequence parallelism): the TP all-gathers stream into the GEMMs that read
  // them and the GEMMs' outputs into the reduce-scatters, side by side.
  bool tp_comm_overlap = false;
  GradReduceDtype grad_reduce_dtype = GradReduceDtype::automatic;
  OptimizerStates optimizer_states;
  GradReduceCollective grad_reduce_collective = GradReduceCollective::automatic;
  // Megatron-Core's --cpu-offloading-num-layers (activations only, as
  // Megatron-Bridge sets it: cpu_offloading_weights false): the saved
  // activations of the first N transformer layers go to host memory after
  // their forward and come back before their backward, through Transformer
  // Engine's double-buffered group offload (models/workload/activation_offload.h).
  int cpu_offload_layers = 0;
  OffloadModules offload_modules;  // fine-grained activation offloading (MoE layers)
  Fp8Recipe fp8_recipe = Fp8Recipe::delayed;  // used when dtype is fp8
  KernelLaunch launch = KernelLaunch::eager;
  CudaGraphScope cuda_graph_scope;  // modules graphed in an eager step (launch: eager)
  MoeTokenDispatcher moe_token_dispatcher = MoeTokenDispatcher::alltoall;
  MoeFlexBackend moe_flex_backend = MoeFlexBackend::deepep;
  MainGradAccumulation main_grad_accumulation = MainGradAccumulation::fused;  // with fp32 main gradients
  // Routed token copies the busiest expert-parallel rank receives, over the
  // mean (1: every rank the same, as --moe-router-force-load-balancing
  // makes it). Dropless routing balanced by an auxiliary loss leaves some
  // ranks busier; every MoE layer then waits for the busiest at its combine.
  double moe_load_imbalance = 1.0;
  double host_overhead_us = kEagerHostOverheadUs;  // per kernel launch; default follows `launch`
  // per kernel compiled code launches inside an op's call (Op::inner_launches); at most host_overhead_us
  double host_inner_launch_us = kInnerLaunchHostUs;
  // The host waits for the GPU at each micro-batch's loss (Megatron's NaN
  // check, on by default: pretrain_gpt.py loss_func -> rerun_state_machine
  // validate_result) and before the optimizer (clip_grads.py total_norm.item()).
  bool host_sync_on_loss = true;
  // The host waits for the GPU before each MoE layer's forward token dispatch
  // (Megatron-Core's dropless all-to-all dispatcher copies the per-rank token
  // counts to the host for the all-to-all's split sizes: token_dispatcher.py,
  // "A synchronization is needed before expert parallel AlltoAll
  // communication to get the `input_splits` and `output_splits` CPU values").
  // It waits for the compute stream only (the copy follows it), not for
  // collectives in flight on other streams.
  bool host_sync_on_moe_dispatch = true;
  // With model.activation quick_geglu (GPT-OSS), the host waits for the
  // compute stream before each routed experts' activation, forward and
  // recomputed: Megatron-Core's weighted_bias_quick_geglu_impl (0d8e0714,
  // fused_bias_geglu.py) builds its linear offset with torch.tensor(...,
  // device=cuda), a blocking host-to-device copy that synchronises the stream
  // (pytorch/pytorch#120996, #190217). A CUDA graph's replay has none.
  bool host_sync_on_quick_geglu = true;
  // Megatron-Core's --moe-router-padding-for-fp8: the router pads each expert's token count to the fp8
  // GEMMs' row alignment, so the grouped GEMMs need no padded copies of their rows (off by default:
  // Transformer Engine's Fp8Padding then copies them, moe_units.cpp).
  bool moe_router_padding_for_fp8 = false;
  // Megatron-Core's --moe-router-fusion: the router's top-k with its score function, the aux-loss
  // scores and the aux loss each run as one Transformer Engine kernel (router.py / moe_utils.py
  // fused=True -> transformer_engine.pytorch.router) instead of a dozen PyTorch ops each.
  bool moe_router_fusion = false;
  LossReduce loss_reduce = LossReduce::step;
  PpSendWait pp_send_wait = PpSendWait::automatic;
  // Megatron-Core's --overlap-moe-expert-parallel-comm (Megatron-Bridge's moe_a2a_overlap): in the
  // steady 1F1B phase one micro-batch's forward and another's backward run as one combined step,
  // layer by layer, each one's expert-parallel all-to-alls beside the other's attention or experts
  // (combined_1f1b.py, model_chunk_schedule_plan.py); one more warm-up forward (schedules.py).
  bool overlap_moe_expert_parallel_comm = false;
  // Megatron-Core's --delay-wgrad-compute (with the overlap above): a layer's weight-gradient GEMMs
  // run after its module's input gradients, so the backward's dispatch all-to-all starts beside them.
  bool delay_wgrad_compute = false;
};

}  // namespace pf::models
