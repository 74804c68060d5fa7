#include "models/workload/workload_plan.h"

#include <algorithm>
#include <string>
#include <utility>

#include "core/error.h"
#include "models/workload/layer_units.h"
#include "models/workload/main_grad_accumulation.h"
#include "models/workload/op_selective_recompute.h"
#include "models/workload/param_count.h"
#include "models/workload/precision.h"

namespace pf::models::workload {
namespace {

void require(bool ok, const std::string& key, const std::string& expected, const std::string& found) {
  if (!ok) throw ConfigError(key + ": expected " + expected + ", found " + found);
}

std::string str(std::int64_t v) { return std::to_string(v); }

}  // namespace

WorkloadPlan::WorkloadPlan(const ModelSpec& model, const ParallelismSpec& par, const TrainingSpec& train)
    : model_(model),
      par_(par),
      train_(train),
      layout_(par),
      split_(model.layers, par.pp, par.chunks(), par.layers_per_stage),
      dims_(local_dims(model, par, train)) {
  validate();
  microbatches_ = static_cast<int>(train_.global_batch_size / (train_.micro_batch_size * par_.dp));
  if (split_.chunks() > 1) {
    require(microbatches_ % par_.pp == 0, "training.global_batch_size",
            "a number of micro-batches per pipeline divisible by pp=" + str(par_.pp) +
                " for the interleaved schedule (Megatron's default micro-batch group)",
            str(microbatches_) + " micro-batches");
  }
  bucket_bytes_ = train_.grad_bucket_mb > 0
                     ? std::max<std::int64_t>(1, static_cast<std::int64_t>(train_.grad_bucket_mb * 1024.0 * 1024.0))
                     : megatron_bucket_params(par_.dp * par_.cp) * grad_bytes();
  p2p_bytes_ = dims_.tokens_sp * dims_.hidden * kActivationBytes;
  build_units();
}

std::int64_t megatron_bucket_params(int dp_cp) {
  return std::max<std::int64_t>(40'000'000, 1'000'000 * static_cast<std::int64_t>(dp_cp));
}

void WorkloadPlan::validate() const {
  const ModelSpec& m = model_;
  require(m.layers >= 1 && m.hidden_size > 0 && m.num_attention_heads > 0 && m.vocab_size > 0, "model",
          "layers, hidden_size, num_attention_heads, vocab_size > 0", m.name);
  require(m.num_attention_heads % par_.tp == 0, "parallelism.tp",
          "a divisor of num_attention_heads=" + str(m.num_attention_heads), str(par_.tp));
  std::int64_t kv = dims_.kv_heads;
  require(kv % par_.tp == 0 || par_.tp % kv == 0, "parallelism.tp",
          "a divisor or multiple of num_kv_heads=" + str(kv), str(par_.tp));
  require(m.ffn_hidden_size % par_.tp == 0, "parallelism.tp",
          "a divisor of ffn_hidden_size=" + str(m.ffn_hidden_size), str(par_.tp));
  require(par_.zero_stage >= 0 && par_.zero_stage <= 3, "parallelism.zero_stage", "0, 1, 2 or 3",
          str(par_.zero_stage));
  require(par_.virtual_stages >= 1, "parallelism.virtual_stages", ">= 1", str(par_.virtual_stages));
  require(par_.virtual_stages == 1 || par_.pipeline_schedule == PipelineSchedule::interleaved,
          "parallelism.virtual_stages", "1 unless pipeline_schedule is interleaved", str(par_.virtual_stages));
  require(par_.chunks() == 1 || par_.pp > 1, "parallelism.virtual_stages", "1 when pp = 1",
          str(par_.virtual_stages));
  const TrainingSpec& t = train_;
  require(t.grad_reduce_collective != GradReduceCollective::reduce_scatter || par_.zero_stage >= 1,
          "training.grad_reduce_collective", "auto or all_reduce with zero_stage 0 (no shard to reduce into)",
          "reduce_scatter");
  require(t.grad_reduce_collective != GradReduceCollective::all_reduce || par_.zero_stage <= 2,
          "training.grad_reduce_collective", "auto or reduce_scatter with zero_stage 3 (gradients are sharded)",
          "all_reduce");
  require(t.cpu_offload_layers == 0 || (t.cpu_offload_layers > 0 && t.cpu_offload_layers < m.layers && par_.pp == 1 &&
                                        t.recompute == Recompute::none),
          "training.cpu_offload_layers", "0, or fewer than model.layers with pp = 1 and no recomputation",
          str(t.cpu_offload_layers));
  require(t.micro_batch_size >= 1 && t.seq_length >= 1, "training.micro_batch_size", ">= 1",
          str(t.micro_batch_size));
  require(t.global_batch_size % (t.micro_batch_size * par_.dp) == 0 && t.global_batch_size > 0,
          "training.global_batch_size", "a multiple of micro_batch_size * dp = " + str(t.micro_batch_size * par_.dp),
          str(t.global_batch_size));
  if (par_.cp > 1) {
    // Load-balanced causal context parallelism cuts the sequence into 2 cp chunks.
    require(t.seq_length % (2 * par_.cp) == 0, "training.seq_length", "a multiple of 2*cp = " + str(2 * par_.cp),
            str(t.seq_length));
  }
  if (dims_.sp) {
    require((t.seq_length / par_.cp) % par_.tp == 0, "training.seq_length",
            "a multiple of cp*tp = " + str(par_.cp * par_.tp) + " (sequence parallelism shards it over tp)",
            str(t.seq_length));
  }
  require(m.mtp_layers >= 0, "model.mtp_layers", ">= 0", str(m.mtp_layers));
  if (m.mla) {
    require(m.mla->kv_lora_rank > 0 && m.mla->qk_nope_head_dim > 0 && m.mla->v_head_dim > 0 &&
                m.mla->qk_rope_head_dim >= 0 && m.mla->q_lora_rank >= 0,
            "model.mla", "kv_lora_rank, qk_nope_head_dim, v_head_dim > 0 and qk_rope_head_dim, q_lora_rank >= 0",
            "kv_lora_rank=" + str(m.mla->kv_lora_rank));
  }
  bool moe = m.moe.has_value() && m.moe->num_experts > 0;
  require(moe || par_.ep == 1, "parallelism.ep", "1 for a model without experts", str(par_.ep));
  if (moe) {
    require(m.moe->num_experts % par_.ep == 0, "parallelism.ep",
            "a divisor of moe.num_experts=" + str(m.moe->num_experts), str(par_.ep));
    require(m.moe->top_k >= 1 && m.moe->top_k <= m.moe->num_experts, "model.moe.top_k",
            "1..num_experts", str(m.moe->top_k));
    require(m.moe->expert_ffn_hidden_size % par_.etp() == 0, "parallelism.expert_tp",
            "a divisor of moe.expert_ffn_hidden_size=" + str(m.moe->expert_ffn_hidden_size), str(par_.etp()));
    require(m.moe->shared_experts == 0 || m.moe->expert_ffn_hidden_size % par_.tp == 0, "parallelism.tp",
            "a divisor of moe.expert_ffn_hidden_size=" + str(m.moe->expert_ffn_hidden_size) + " (shared experts)",
            str(par_.tp));
    require(par_.etp() == par_.tp || par_.etp() == 1, "parallelism.expert_tp", "1 or tp=" + str(par_.tp),
            str(par_.etp()));
    require(par_.tp == 1 || par_.sequence_parallel, "parallelism.sequence_parallel",
            "true for a MoE model with tp > 1 (as Megatron requires)", "false");
  }
  if (t.overlap_moe_expert_parallel_comm) validate_a2a_overlap();
}

// What Megatron-Core's TransformerConfig asserts for --overlap-moe-expert-parallel-comm
// (transformer_config.py at 0d8e0714), and what preflight does not model beside it.
void WorkloadPlan::validate_a2a_overlap() const {
  const std::string key = "training.overlap_moe_expert_parallel_comm";
  const TrainingSpec& t = train_;
  require(par_.ep > 1, key, "false without expert parallelism (parallelism.ep > 1)", "true with ep = 1");
  require(par_.pp == 1 || par_.chunks() > 1, key,
          "false with pp > 1 unless the schedule is interleaved (virtual_stages > 1), as Megatron-Core requires",
          "true with pp = " + str(par_.pp) + " and one virtual stage");
  require(t.recompute != Recompute::full && t.recompute != Recompute::selective_op, key,
          "false with full or op-level recomputation (Megatron-Core allows no recompute_method or recompute_num_layers)",
          "true");
  require(model_.mtp_layers <= 1, key, "false with more than one multi-token-prediction layer",
          "true with model.mtp_layers = " + str(model_.mtp_layers));
  require(par_.zero_stage <= 2, key, "false with zero_stage 3 (per-layer parameter gathers are not modelled beside it)",
          "true");
  require(t.cpu_offload_layers == 0, key, "false with training.cpu_offload_layers (not modelled beside it)", "true");
}

GroupKind WorkloadPlan::grad_group(ParamClass cls) const {
  if (cls == ParamClass::expert) return GroupKind::edp;
  return par_.cp > 1 ? GroupKind::dp_cp : GroupKind::dp;
}

std::int64_t WorkloadPlan::mtp_embedding_copy() const {
  bool copy = par_.pp > 1 && !model_.tied_embeddings && model_.mtp_layers > 0;
  return copy ? dims_.vocab_local * dims_.hidden : 0;
}

int WorkloadPlan::param_bytes() const { return workload::param_bytes(train_.dtype); }

bool WorkloadPlan::grads_all_reduced() const {
  if (train_.grad_reduce_collective == GradReduceCollective::automatic) return par_.zero_stage == 0;
  return train_.grad_reduce_collective == GradReduceCollective::all_reduce;
}

int WorkloadPlan::grad_bytes() const { return workload::grad_bytes(train_.dtype, train_.grad_reduce_dtype); }

void WorkloadPlan::build_units() {
  const ArchTraits arch = arch_traits(model_);
  KernelStyle kernels;
  kernels.fp8_quantize_bytes = train_.dtype == Dtype::fp8 ? fp8_quantize_bytes(train_.fp8_recipe) : 0.0;
  kernels.fp8_recipe = train_.fp8_recipe;
  kernels.eager_elementwise = !train_.fused_elementwise;
  kernels.eager = {model_.norm == Norm::rmsnorm, arch.gated_mlp, arch.dropout};
  RecipeContext c{model_, dims_, arch, train_.selective_modules(), train_.attention == AttentionKernel::unfused,
                  train_.fused_cross_entropy, kernels, train_.tp_comm_overlap,
                  train_.moe_token_dispatcher == MoeTokenDispatcher::flex, train_.cuda_graph_scope,
                  train_.offload_modules};
  const bool hybridep = train_.moe_token_dispatcher == MoeTokenDispatcher::flex &&
                        train_.moe_flex_backend == MoeFlexBackend::hybridep;
  c.te_cross_entropy = train_.fused_cross_entropy && train_.cross_entropy_fusion_impl == CrossEntropyFusionImpl::te;
  c.fp8_expert_padding = train_.dtype == Dtype::fp8 && !train_.moe_router_padding_for_fp8 && !hybridep;
  c.a2a_overlap = train_.overlap_moe_expert_parallel_comm;
  c.delay_wgrad = train_.delay_wgrad_compute;
  c.router_fusion = train_.moe_router_fusion;
  auto set = [&](UnitId id, Unit u) { units_[static_cast<std::size_t>(id)] = std::move(u); };
  set(UnitId::embedding_fwd, embedding_forward_unit(c));
  set(UnitId::embedding_bwd, embedding_backward_unit(c));
  std::int64_t head = lm_head_params(model_, dims_, separate_head());
  set(UnitId::head_fwd, head_forward_unit(c, head, mtp_embedding_copy()));
  set(UnitId::head_bwd, head_backward_unit(c, head, mtp_embedding_copy()));
  set(UnitId::dense_fwd, layer_forward_unit(c, false));
  set(UnitId::dense_bwd, layer_backward_unit(c, false));
  set(UnitId::dense_recompute, train_.recompute == Recompute::selective_op ? op_selective_recompute_unit(c)
                                                                          : layer_recompute_unit(c, false));
  bool moe = model_.moe.has_value() && model_.moe->num_experts > 0;
  if (moe) {
    set(UnitId::moe_fwd, layer_forward_unit(c, true));
    set(UnitId::moe_bwd, layer_backward_unit(c, true));
    set(UnitId::moe_recompute, layer_recompute_unit(c, true));
  }
  if (model_.sliding_window && model_.sliding_window->size > 0) {
    RecipeContext w = c;
    w.attention_window = model_.sliding_window->size;
    set(UnitId::dense_window_fwd, layer_forward_unit(w, false));
    set(UnitId::dense_window_bwd, layer_backward_unit(w, false));
    set(UnitId::dense_window_recompute, train_.recompute == Recompute::selective_op ? op_selective_recompute_unit(w)
                                                                                   : layer_recompute_unit(w, false));
    if (moe) {
      set(UnitId::moe_window_fwd, layer_forward_unit(w, true));
      set(UnitId::moe_window_bwd, layer_backward_unit(w, true));
      set(UnitId::moe_window_recompute, layer_recompute_unit(w, true));
    }
  }
  if (model_.mtp_layers > 0) {
    set(UnitId::mtp_fwd, mtp_forward_unit(c));
    set(UnitId::mtp_bwd, mtp_backward_unit(c));
  }
  const double accumulate = main_grad_accumulation_bytes(train_.main_grad_accumulation, grad_bytes());
  const int accumulate_kernels = main_grad_accumulation_kernels(train_.main_grad_accumulation);
  for (UnitId id : {UnitId::embedding_bwd, UnitId::head_bwd, UnitId::dense_bwd, UnitId::moe_bwd, UnitId::mtp_bwd,
                    UnitId::dense_window_bwd, UnitId::moe_window_bwd})
    append_main_grad_accumulation(units_[static_cast<std::size_t>(id)], accumulate, accumulate_kernels);
  for (const Unit& u : units_) max_unit_size_ = std::max(max_unit_size_, static_cast<int>(u.ops.size()));
}

UnitId WorkloadPlan::layer_unit(int layer, LayerPass pass) const {
  static constexpr UnitId kUnits[2][2][3] = {
      {{UnitId::dense_fwd, UnitId::dense_bwd, UnitId::dense_recompute},
       {UnitId::dense_window_fwd, UnitId::dense_window_bwd, UnitId::dense_window_recompute}},
      {{UnitId::moe_fwd, UnitId::moe_bwd, UnitId::moe_recompute},
       {UnitId::moe_window_fwd, UnitId::moe_window_bwd, UnitId::moe_window_recompute}}};
  const bool moe = layer_is_moe(model_, layer);
  const bool windowed = layer_attention_window(model_, layer) > 0;
  return kUnits[moe ? 1 : 0][windowed ? 1 : 0][static_cast<int>(pass)];
}

}  // namespace pf::models::workload
