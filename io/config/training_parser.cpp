#include "io/config/training_parser.h"

#include <string>

#include "io/config/config_error.h"
#include "io/config/hardware_parser.h"
#include "io/config/map_reader.h"

namespace pf::config {

namespace {

const EnumNames<models::Recompute> kRecompute{{"none", models::Recompute::none},
                                               {"selective", models::Recompute::selective},
                                               {"full", models::Recompute::full},
                                               {"selective_op", models::Recompute::selective_op}};
const EnumNames<models::RecomputeMethod> kRecomputeMethod{{"block", models::RecomputeMethod::block},
                                                          {"uniform", models::RecomputeMethod::uniform}};
// Training precisions (tf32/fp32 peaks exist in hardware files but are not training dtypes here).
const EnumNames<models::Dtype> kTrainingDtypes{{"bf16", models::Dtype::bf16},
                                                {"fp16", models::Dtype::fp16},
                                                {"fp8", models::Dtype::fp8}};

const EnumNames<models::AttentionKernel> kAttention{{"flash", models::AttentionKernel::flash},
                                                    {"flash2", models::AttentionKernel::flash2},
                                                    {"flash_triton", models::AttentionKernel::flash_triton},
                                                    {"unfused", models::AttentionKernel::unfused}};
const EnumNames<models::KernelLaunch> kLaunch{{"eager", models::KernelLaunch::eager},
                                              {"cuda_graph", models::KernelLaunch::cuda_graph}};

const EnumNames<models::MoeTokenDispatcher> kDispatcher{{"alltoall", models::MoeTokenDispatcher::alltoall},
                                                        {"flex", models::MoeTokenDispatcher::flex}};
const EnumNames<models::CrossEntropyFusionImpl> kCrossEntropyImpl{{"native", models::CrossEntropyFusionImpl::native},
                                                               {"te", models::CrossEntropyFusionImpl::te}};
const EnumNames<models::LossReduce> kLossReduce{{"step", models::LossReduce::step},
                                                {"microbatch", models::LossReduce::microbatch}};
const EnumNames<models::PpSendWait> kPpSendWait{{"auto", models::PpSendWait::automatic},
                                                {"blocking", models::PpSendWait::blocking},
                                                {"deferred", models::PpSendWait::deferred},
                                                {"background", models::PpSendWait::background}};
const EnumNames<models::MoeFlexBackend> kFlexBackend{{"deepep", models::MoeFlexBackend::deepep},
                                                     {"hybridep", models::MoeFlexBackend::hybridep}};
const EnumNames<models::MainGradAccumulation> kMainGradAccumulation{
    {"fused", models::MainGradAccumulation::fused},
    {"add", models::MainGradAccumulation::add},
    {"cast_add", models::MainGradAccumulation::cast_add}};

const EnumNames<models::GradReduceDtype> kGradReduce{{"auto", models::GradReduceDtype::automatic},
                                                     {"fp32", models::GradReduceDtype::fp32},
                                                     {"bf16", models::GradReduceDtype::bf16},
                                                     {"fp16", models::GradReduceDtype::fp16}};

const EnumNames<models::StateDtype> kStateDtype{{"fp32", models::StateDtype::fp32},
                                                 {"bf16", models::StateDtype::bf16},
                                                 {"fp16", models::StateDtype::fp16},
                                                 {"fp8", models::StateDtype::fp8}};

const EnumNames<models::GradReduceCollective> kGradReduceCollective{
    {"auto", models::GradReduceCollective::automatic},
    {"reduce_scatter", models::GradReduceCollective::reduce_scatter},
    {"all_reduce", models::GradReduceCollective::all_reduce}};

const EnumNames<models::Fp8Recipe> kFp8Recipe{{"delayed", models::Fp8Recipe::delayed},
                                               {"tensorwise", models::Fp8Recipe::tensorwise},
                                               {"mxfp8", models::Fp8Recipe::mxfp8},
                                               {"blockwise", models::Fp8Recipe::blockwise}};

const EnumNames<models::CudaGraphScope::Module> kGraphModules{{"attn", models::CudaGraphScope::attn},
                                                               {"mlp", models::CudaGraphScope::mlp},
                                                               {"moe_router", models::CudaGraphScope::moe_router},
                                                               {"moe_preprocess", models::CudaGraphScope::moe_preprocess},
                                                               {"moe", models::CudaGraphScope::moe}};

const EnumNames<models::RecomputeModules::Module> kRecomputeModules{
    {"core_attn", models::RecomputeModules::core_attn},
    {"layernorm", models::RecomputeModules::layernorm},
    {"moe_act", models::RecomputeModules::moe_act},
    {"mla_up_proj", models::RecomputeModules::mla_up_proj},
    {"mlp", models::RecomputeModules::mlp},
    {"moe", models::RecomputeModules::moe},
    {"shared_experts", models::RecomputeModules::shared_experts}};

const EnumNames<models::OffloadModules::Module> kOffloadModules{{"expert_fc1", models::OffloadModules::expert_fc1},
                                                                 {"moe_act", models::OffloadModules::moe_act}};

// A sequence of module names (non-empty where `non_empty`), each once, as
// the bits of their Module values; `expected` says what the key takes.
template <class Module>
std::uint8_t parse_module_bits(const ConfigNode& node, const EnumNames<Module>& names, bool non_empty,
                               const char* expected) {
  if (!node.is_sequence() || (non_empty && node.items().empty())) fail_expected(node, expected);
  std::uint8_t bits = 0;
  for (const ConfigNode& item : node.items()) {
    const Module m = as_enum(item, names);
    if ((bits & m) != 0) fail_expected(item, "each module once", "'" + item.text() + "' again");
    bits = static_cast<std::uint8_t>(bits | m);
  }
  return bits;
}

// training.offload_modules: Megatron-Core's --offload-modules (with
// --fine-grained-activation-offloading), a non-empty sequence, each once.
models::OffloadModules parse_offload_modules(const ConfigNode& node) {
  models::OffloadModules modules;
  modules.modules =
      parse_module_bits(node, kOffloadModules, true, "a non-empty sequence of modules: expert_fc1, moe_act");
  return modules;
}

// training.recompute_modules: Megatron-Core's --recompute-modules, a
// non-empty sequence, each module once, only with recompute: selective.
models::RecomputeModules parse_recompute_modules(const ConfigNode& node, models::Recompute recompute) {
  if (recompute != models::Recompute::selective)
    fail_expected(node, "recompute: selective beside recompute_modules", "recompute_modules without it");
  models::RecomputeModules modules;
  modules.modules = parse_module_bits(node, kRecomputeModules, true,
                                      "a non-empty sequence of modules, e.g. [core_attn, layernorm, moe_act]");
  return modules;
}

// training.cuda_graph_scope: a sequence of module names, with Megatron-Core's
// own rules (transformer_config.py): moe_preprocess needs moe_router, and moe
// excludes both (it captures them already). Graphs replace eager launches, so
// a scope needs launch: eager.
models::CudaGraphScope parse_graph_scope(const ConfigNode& node, models::KernelLaunch launch) {
  models::CudaGraphScope scope;
  scope.modules =
      parse_module_bits(node, kGraphModules, false, "a sequence of modules, e.g. [attn, moe_router, moe_preprocess]");
  using S = models::CudaGraphScope;
  if (scope.has(S::moe_preprocess) && !scope.has(S::moe_router))
    fail_expected(node, "moe_router beside moe_preprocess (Megatron-Core captures the preprocess after the router)",
                  "moe_preprocess alone");
  if (scope.has(S::moe) && (scope.has(S::moe_router) || scope.has(S::moe_preprocess)))
    fail_expected(node, "moe or moe_router/moe_preprocess, not both (moe captures the whole MoE layer)", "both");
  if (scope.any() && launch != models::KernelLaunch::eager)
    fail_expected(node, "no scope with launch: cuda_graph (that graphs every kernel already)", "a scope");
  return scope;
}

// training.optimizer_states: the precisions of Adam's master weights and
// moments (models/spec/training_spec.h). Remainders stand for an fp32 master
// copy of bf16 weights only (Transformer Engine's FusedAdam and Apex's
// DistributedFusedAdam rebuild fp32 from the bf16 weight's bits).
models::OptimizerStates parse_optimizer_states(const ConfigNode& node, models::Dtype dtype) {
  MapReader r(node);
  models::OptimizerStates s;
  s.main_params = r.get_enum_or("main_params", models::StateDtype::fp32, kStateDtype);
  s.exp_avg = r.get_enum_or("exp_avg", models::StateDtype::fp32, kStateDtype);
  s.exp_avg_sq = r.get_enum_or("exp_avg_sq", models::StateDtype::fp32, kStateDtype);
  s.param_remainders = r.get_bool_or("param_remainders", false);
  if (s.main_params == models::StateDtype::fp8) {
    fail_expected(nearest_node(r.node(), "main_params"), "fp32, bf16 or fp16 (no fp8 master weights)", "fp8");
  }
  const bool bf16_weights = dtype == models::Dtype::bf16 || dtype == models::Dtype::fp8;
  if (s.param_remainders && s.main_params != models::StateDtype::fp32) {
    fail_expected(nearest_node(r.node(), "param_remainders"), "true only with main_params fp32",
                  "main_params " + r.find("main_params")->text());
  }
  if (s.param_remainders && !bf16_weights) {
    fail_expected(nearest_node(r.node(), "param_remainders"), "true only with bf16 weights (training.dtype bf16 or fp8)",
                  "training.dtype " + std::string(dtype_name(dtype)));
  }
  r.finish();
  return s;
}

}  // namespace

models::TrainingSpec parse_training(const ConfigNode& node) {
  MapReader r(node);
  models::TrainingSpec t;
  t.global_batch_size = r.get_int("global_batch_size", 1, kInt64Max);
  t.micro_batch_size = r.get_int_or("micro_batch_size", 1, 1, kInt64Max);
  t.seq_length = r.get_int("seq_length", 1, kInt64Max);
  t.recompute = r.get_enum_or("recompute", models::Recompute::none, kRecompute);
  if (const ConfigNode* modules = r.find("recompute_modules"))
    t.recompute_modules = parse_recompute_modules(*modules, t.recompute);
  t.recompute_num_layers = static_cast<int>(r.get_int_or("recompute_num_layers", 0, 0, kIntMax));
  if (t.recompute_num_layers > 0 && t.recompute != models::Recompute::full) {
    fail_expected(nearest_node(r.node(), "recompute_num_layers"), "0 unless recompute is full",
                  std::to_string(t.recompute_num_layers));
  }
  if (const ConfigNode* method = r.find("recompute_method")) {
    t.recompute_method = r.get_enum_or("recompute_method", models::RecomputeMethod::block, kRecomputeMethod);
    if (t.recompute != models::Recompute::full) {
      fail_expected(*method, "recompute: full beside recompute_method", "recompute_method without it");
    }
  }
  t.dtype = r.get_enum_or("dtype", models::Dtype::bf16, kTrainingDtypes);
  t.overlap_grad_reduce = r.get_bool_or("overlap_grad_reduce", true);
  t.overlap_param_gather = r.get_bool_or("overlap_param_gather", true);
  const ConfigNode* bucket = r.find("grad_bucket_mb");
  if (bucket != nullptr && bucket->is_scalar() && bucket->text() == "auto") {
    r.accept("grad_bucket_mb");
  } else {
    t.grad_bucket_mb = r.get_double_or("grad_bucket_mb", 0.0, NumberRange::positive());
  }
  t.attention = r.get_enum_or("attention", models::AttentionKernel::flash, kAttention);
  t.fused_cross_entropy = r.get_bool_or("fused_cross_entropy", false);
  t.cross_entropy_fusion_impl =
      r.get_enum_or("cross_entropy_fusion_impl", models::CrossEntropyFusionImpl::native, kCrossEntropyImpl);
  if (t.cross_entropy_fusion_impl == models::CrossEntropyFusionImpl::te && !t.fused_cross_entropy) {
    fail_expected(*r.find("cross_entropy_fusion_impl"), "native unless fused_cross_entropy is true", "te");
  }
  t.fused_elementwise = r.get_bool_or("fused_elementwise", true);
  t.tp_comm_overlap = r.get_bool_or("tp_comm_overlap", false);
  t.grad_reduce_dtype = r.get_enum_or("grad_reduce_dtype", models::GradReduceDtype::automatic, kGradReduce);
  if (const ConfigNode* states = r.find("optimizer_states")) t.optimizer_states = parse_optimizer_states(*states, t.dtype);
  t.grad_reduce_collective =
      r.get_enum_or("grad_reduce_collective", models::GradReduceCollective::automatic, kGradReduceCollective);
  t.cpu_offload_layers = static_cast<int>(r.get_int_or("cpu_offload_layers", 0, 0, kIntMax));
  if (const ConfigNode* modules = r.find("offload_modules")) t.offload_modules = parse_offload_modules(*modules);
  t.fp8_recipe = r.get_enum_or("fp8_recipe", models::Fp8Recipe::delayed, kFp8Recipe);
  t.launch = r.get_enum_or("launch", models::KernelLaunch::eager, kLaunch);
  if (const ConfigNode* scope = r.find("cuda_graph_scope")) t.cuda_graph_scope = parse_graph_scope(*scope, t.launch);
  t.moe_token_dispatcher = r.get_enum_or("moe_token_dispatcher", models::MoeTokenDispatcher::alltoall, kDispatcher);
  t.moe_flex_backend = r.get_enum_or("moe_flex_backend", models::MoeFlexBackend::deepep, kFlexBackend);
  t.main_grad_accumulation =
      r.get_enum_or("main_grad_accumulation", models::MainGradAccumulation::fused, kMainGradAccumulation);
  t.moe_load_imbalance = r.get_double_or("moe_load_imbalance", 1.0, NumberRange::at_least(1.0));
  const double launch_default =
      t.launch == models::KernelLaunch::eager ? models::kEagerHostOverheadUs : models::kCudaGraphHostOverheadUs;
  t.host_overhead_us = r.get_double_or("host_overhead_us", launch_default, NumberRange::non_negative());
  t.host_inner_launch_us = r.get_double_or("host_inner_launch_us", models::kInnerLaunchHostUs, NumberRange::non_negative());
  t.host_sync_on_loss = r.get_bool_or("host_sync_on_loss", true);
  t.host_sync_on_moe_dispatch = r.get_bool_or("host_sync_on_moe_dispatch", true);
  t.host_sync_on_quick_geglu = r.get_bool_or("host_sync_on_quick_geglu", true);
  t.moe_router_padding_for_fp8 = r.get_bool_or("moe_router_padding_for_fp8", false);
  t.moe_router_fusion = r.get_bool_or("moe_router_fusion", false);
  t.loss_reduce = r.get_enum_or("loss_reduce", models::LossReduce::step, kLossReduce);
  t.pp_send_wait = r.get_enum_or("pp_send_wait", models::PpSendWait::automatic, kPpSendWait);
  t.overlap_moe_expert_parallel_comm = r.get_bool_or("overlap_moe_expert_parallel_comm", false);
  t.delay_wgrad_compute = r.get_bool_or("delay_wgrad_compute", false);
  if (t.delay_wgrad_compute && !t.overlap_moe_expert_parallel_comm) {
    fail_expected(*r.find("delay_wgrad_compute"), "false unless overlap_moe_expert_parallel_comm is true", "true");
  }
  r.finish();
  return t;
}

}  // namespace pf::config
