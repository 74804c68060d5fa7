#include "io/config/experiment_checks.h"

#include <numeric>

#include "io/config/config_error.h"
#include "io/config/hardware_parser.h"
#include "io/config/output_parser.h"

namespace pf::config {

namespace {

std::string str(std::int64_t value) { return std::to_string(value); }

void check_tensor_split(const ConfigNode& root, const models::ExperimentSpec& s) {
  const models::ModelSpec& m = s.model;
  const int tp = s.parallelism.tp;
  const ConfigNode& tp_node = nearest_node(root, "parallelism.tp");
  if (m.num_attention_heads % tp != 0) {
    fail_expected(tp_node, "a divisor of model.num_attention_heads (" + str(m.num_attention_heads) + ")", str(tp));
  }
  // Fewer KV heads than TP ranks are replicated (Megatron GQA); more must split evenly.
  const int kv = m.num_kv_heads;
  if ((kv >= tp && kv % tp != 0) || (kv < tp && tp % kv != 0)) {
    fail_expected(tp_node, "a divisor or multiple of model.num_kv_heads (" + str(kv) + ")", str(tp));
  }
  // Column-parallel MLP weights split the FFN width evenly across TP ranks.
  if (m.ffn_hidden_size % tp != 0) {
    fail_expected(tp_node, "a divisor of model.ffn_hidden_size (" + str(m.ffn_hidden_size) + ")", str(tp));
  }
  // Experts split like the MLP unless whole (expert_tp 1); shared experts always do.
  const bool experts_split = s.parallelism.etp() == tp || (m.moe && m.moe->shared_experts > 0);
  if (m.moe && experts_split && m.moe->expert_ffn_hidden_size % tp != 0) {
    fail_expected(tp_node, "a divisor of model.moe.expert_ffn_hidden_size (" + str(m.moe->expert_ffn_hidden_size) + ")",
                  str(tp));
  }
}

void check_experts(const ConfigNode& root, const models::ExperimentSpec& s) {
  const int ep = s.parallelism.ep;
  if (ep == 1) return;
  const ConfigNode& ep_node = nearest_node(root, "parallelism.ep");
  if (!s.model.moe) fail_expected(ep_node, "1 for a model without moe", str(ep));
  if (s.model.moe->num_experts % ep != 0) {
    fail_expected(ep_node, "a divisor of model.moe.num_experts (" + str(s.model.moe->num_experts) + ")", str(ep));
  }
}

void check_stages(const ConfigNode& root, const models::ExperimentSpec& s) {
  const models::ParallelismSpec& p = s.parallelism;
  const std::int64_t chunks = std::int64_t{p.pp} * p.virtual_stages;
  if (p.layers_per_stage.empty()) {
    if (s.model.layers < chunks) {
      fail_expected(nearest_node(root, "parallelism.pp"),
                    "pp*virtual_stages <= model.layers (" + str(s.model.layers) + ")", str(chunks));
    }
    return;
  }
  const std::int64_t sum = std::accumulate(p.layers_per_stage.begin(), p.layers_per_stage.end(), std::int64_t{0});
  if (sum != s.model.layers) {
    fail_expected(nearest_node(root, "parallelism.layers_per_stage"),
                  "entries summing to model.layers (" + str(s.model.layers) + ")", "a sum of " + str(sum));
  }
}

void check_sequence(const ConfigNode& root, const models::ExperimentSpec& s) {
  const models::ParallelismSpec& p = s.parallelism;
  const std::int64_t seq = s.training.seq_length;
  const ConfigNode& seq_node = nearest_node(root, "training.seq_length");
  // Megatron's context parallelism splits each sequence into 2*cp chunks to balance causal attention.
  if (p.cp > 1 && seq % (2 * p.cp) != 0) {
    fail_expected(seq_node, "a multiple of 2*cp (" + str(2 * p.cp) + ")", str(seq));
  }
  if (p.sequence_parallel && p.tp > 1 && (seq / p.cp) % p.tp != 0) {
    fail_expected(seq_node, "a multiple of cp*tp (" + str(std::int64_t{p.cp} * p.tp) + ") with sequence_parallel",
                  str(seq));
  }
}

// The unfused path is Megatron's pre-FlashAttention CoreAttention: one
// sequence per GPU, standard multi-head attention. A sliding window is
// modelled in the flash kernels of one context-parallel rank only.
void check_attention(const ConfigNode& root, const models::ExperimentSpec& s) {
  if (s.model.sliding_window && s.parallelism.cp > 1) {
    fail_expected(nearest_node(root, "parallelism.cp"), "1 with model.sliding_window (ring attention over a window)",
                  str(s.parallelism.cp));
  }
  if (s.training.attention != models::AttentionKernel::unfused) return;
  const ConfigNode& node = nearest_node(root, "training.attention");
  if (s.parallelism.cp > 1) fail_expected(node, "flash with parallelism.cp > 1 (ring attention)", "unfused");
  if (s.model.mla) fail_expected(node, "flash with model.mla (latent attention)", "unfused");
  if (s.model.sliding_window) fail_expected(node, "flash with model.sliding_window", "unfused");
}

// torchtitan's op-level checkpointing is defined here for dense layers with
// standard (grouped-query) attention: which matmuls it keeps is counted over
// the block's nn.Linear calls, and MoE or latent-attention blocks call others.
void check_recompute(const ConfigNode& root, const models::ExperimentSpec& s) {
  if (s.training.recomputes(models::RecomputeModules::mla_up_proj) && !s.model.mla) {
    fail_expected(nearest_node(root, "training.recompute_modules"),
                  "mla_up_proj only with model.mla (it re-runs latent attention's up-projections)", "mla_up_proj");
  }
  if (s.training.recompute != models::Recompute::selective_op) return;
  const ConfigNode& node = nearest_node(root, "training.recompute");
  if (s.model.moe && s.model.moe->num_experts > 0) {
    fail_expected(node, "none, selective or full with model.moe (selective_op covers dense layers)", "selective_op");
  }
  if (s.model.mla) fail_expected(node, "none, selective or full with model.mla", "selective_op");
}

// Megatron-Core's own limits on --cpu-offloading-num-layers
// (TransformerConfig.__post_init__): fewer layers than the model has, no
// pipeline parallelism, no activation recomputation; and no CUDA graphs
// (Megatron-Bridge's perf scripts reject them together).
void check_offload(const ConfigNode& root, const models::ExperimentSpec& s) {
  const int n = s.training.cpu_offload_layers;
  if (n == 0) return;
  const ConfigNode& node = nearest_node(root, "training.cpu_offload_layers");
  if (n >= s.model.layers)
    fail_expected(node, "fewer layers than model.layers (" + str(s.model.layers) + ")", str(n));
  if (s.parallelism.pp > 1)
    fail_expected(node, "0 with parallelism.pp > 1 (Megatron-Core offloads activations without pipeline parallelism only)",
                  str(n));
  if (s.training.recompute != models::Recompute::none)
    fail_expected(node, "0 with training.recompute (Megatron-Core: CPU offloading does not work with recomputation)",
                  str(n));
  if (s.training.launch != models::KernelLaunch::eager || s.training.cuda_graph_scope.any())
    fail_expected(node, "0 with CUDA graphs (training.launch, training.cuda_graph_scope)", str(n));
}

// Fine-grained offloading: the modelled modules are the routed experts'
// (a model with experts), and Megatron-Core refuses it beside layer offloading.
void check_offload_modules(const ConfigNode& root, const models::ExperimentSpec& s) {
  if (!s.training.offload_modules.any()) return;
  const ConfigNode& node = nearest_node(root, "training.offload_modules");
  if (!s.model.moe || s.model.moe->num_experts == 0)
    fail_expected(node, "expert_fc1 / moe_act only with model.moe (they offload the routed experts' inputs)",
                  "a model without experts");
  if (s.training.cpu_offload_layers > 0)
    fail_expected(node, "no offload_modules beside training.cpu_offload_layers (Megatron-Core: fine-grained "
                        "activation offloading cannot be enabled with cpu_offloading)",
                  "both");
}

void check_batch(const ConfigNode& root, const models::ExperimentSpec& s) {
  const std::int64_t per_step = s.training.micro_batch_size * s.parallelism.dp;
  if (s.training.global_batch_size % per_step != 0) {
    fail_expected(nearest_node(root, "training.global_batch_size"),
                  "a multiple of micro_batch_size*dp (" + str(s.training.micro_batch_size) + "*" +
                      str(s.parallelism.dp) + " = " + str(per_step) + ")",
                  str(s.training.global_batch_size));
  }
}

void check_dtype(const ConfigNode& root, const models::ExperimentSpec& s) {
  if (s.hardware.gpu.peak_tflops.count(s.training.dtype) == 0) {
    fail_expected(nearest_node(root, "hardware.gpu.peak_tflops"),
                  "a peak for training.dtype " + std::string(dtype_name(s.training.dtype)), "none");
  }
}

void check_timeline_gpus(const ConfigNode& root, const models::ExperimentSpec& s) {
  const auto ranges = parse_gpu_range_list(s.output.timeline_gpus);
  if (!ranges) return;   // a keyword: auto | all | first_replica
  for (const GpuRange& range : *ranges) {
    if (range.last >= s.gpu_count()) {
      fail_expected(nearest_node(root, "output.timeline_gpus"),
                    "GPU ids below the GPU count (" + str(s.gpu_count()) + ")", "id " + str(range.last));
    }
  }
}

}  // namespace

void check_experiment(const ConfigNode& root, const models::ExperimentSpec& spec, bool has_model) {
  // A SimAI workload file brings its own parallel layout and micro-batches:
  // the split and batch checks are about the built-in model's plan.
  if (has_model) {
    check_tensor_split(root, spec);
    check_experts(root, spec);
    check_stages(root, spec);
    check_sequence(root, spec);
    check_attention(root, spec);
    check_recompute(root, spec);
    check_offload(root, spec);
    check_offload_modules(root, spec);
    check_batch(root, spec);
  }
  check_dtype(root, spec);
  check_timeline_gpus(root, spec);
}

}  // namespace pf::config
