// `preflight validate`: checks an experiment and prints its memory plan and
// FLOPs without simulating (io/cli/README.md). Exit 3 when it does not fit.
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/cli/command.h"
#include "io/cli/output_files.h"
#include "io/config/experiment_loader.h"
#include "models/network/faults.h"
#include "models/memory/plan_summary.h"
#include "models/workload/precision.h"

namespace pf::cli {
namespace {

struct ValidateOptions {
  std::string experiment;
  std::vector<std::string> overrides;
  std::string json_path;
};

// Bytes of model state per parameter before any sharding: the weights, the
// main gradients (training.grad_reduce_dtype) and what Adam keeps beside them
// (training.optimizer_states); zero_stage then shards them over DP.
struct StateBytes {
  int weights, gradients, optimizer;
};
StateBytes state_bytes_per_parameter(const models::TrainingSpec& t) {
  namespace w = models::workload;
  return {w::param_bytes(t.dtype), w::grad_bytes(t.dtype, t.grad_reduce_dtype), w::optimizer_bytes(t)};
}

nlohmann::ordered_json to_json(const models::memory::PlanSummary& s, const StateBytes& b) {
  nlohmann::ordered_json j;
  j["parameters"] = s.parameters;
  j["active_parameters"] = s.active_parameters;
  j["model_flops"] = s.model_flops;
  j["hardware_flops"] = s.hardware_flops;
  j["peak_memory_gb"] = s.peak_memory_gb;
  j["pp_stage_memory_gb"] = s.pp_stage_memory_gb;
  j["memory"] = {{"parameters_gb", s.parameters_gb},
                 {"gradients_gb", s.gradients_gb},
                 {"optimizer_gb", s.optimizer_gb},
                 {"activations_gb", s.activations_gb},
                 {"comm_buffers_gb", s.comm_buffers_gb}};
  if (s.host_activations_gb > 0) j["memory"]["host_activations_gb"] = s.host_activations_gb;
  j["state_bytes_per_parameter"] = {{"weights", b.weights}, {"gradients", b.gradients}, {"optimizer", b.optimizer}};
  j["binding_pp_stage"] = s.binding_stage;
  if (s.oom)
    j["oom"] = {{"capacity_gb", s.oom->capacity_gb}, {"required_gb", s.oom->required_gb}, {"excess_gb", s.oom->excess_gb}};
  else
    j["oom"] = nullptr;
  if (s.host_oom)
    j["host_oom"] = {{"capacity_gb", s.host_oom->capacity_gb},
                     {"required_gb", s.host_oom->required_gb},
                     {"excess_gb", s.host_oom->excess_gb}};
  return j;
}

void print_text(std::FILE* out, const models::ExperimentSpec& e, const models::memory::PlanSummary& s,
                const StateBytes& b) {
  const auto& p = e.parallelism;
  std::fprintf(out, "experiment: %s\n", e.name.c_str());
  std::fprintf(out, "gpus: %d = tp %d x pp %d x dp %d x cp %d (ep %d, zero %d)\n", e.gpu_count(), p.tp, p.pp, p.dp, p.cp,
              p.ep, p.zero_stage);
  std::fprintf(out, "parameters: %.3f B (active per token: %.3f B)\n", static_cast<double>(s.parameters) / 1e9,
              static_cast<double>(s.active_parameters) / 1e9);
  std::fprintf(out, "model_flops per iteration: %.4g PFLOP\n", s.model_flops / 1e15);
  std::fprintf(out, "hardware_flops per iteration: %.4g PFLOP (with recomputation)\n", s.hardware_flops / 1e15);
  std::fprintf(out, "memory per pipeline stage (GiB):");
  for (double gb : s.pp_stage_memory_gb) std::fprintf(out, " %.2f", gb);
  std::fprintf(out, "\nheaviest stage %d: parameters %.2f + gradients %.2f + optimizer %.2f + activations %.2f + "
              "buffers %.2f = %.2f GiB\n",
              s.binding_stage, s.parameters_gb, s.gradients_gb, s.optimizer_gb, s.activations_gb, s.comm_buffers_gb,
              s.peak_memory_gb);
  std::fprintf(out, "model state per parameter: weights %d + gradients %d + optimizer %d bytes before ZeRO stage %d shards "
              "them (training.grad_reduce_dtype, training.optimizer_states)\n",
              b.weights, b.gradients, b.optimizer, p.zero_stage);
  if (s.host_activations_gb > 0)
    std::fprintf(out, "activations in host memory: %.2f GiB per GPU (activation offloading)\n", s.host_activations_gb);
  if (s.host_oom)
    std::fprintf(out, "host memory does NOT fit the offloaded activations: %.2f GiB of %.2f GiB per GPU (%.2f GiB over, "
                "hardware.node.host_memory_gb)\n",
                s.host_oom->required_gb, s.host_oom->capacity_gb, s.host_oom->excess_gb);
  if (s.oom)
    std::fprintf(out, "does NOT fit: needs %.2f GiB of %.2f GiB (%.2f GiB over)\n", s.oom->required_gb, s.oom->capacity_gb,
                s.oom->excess_gb);
  else if (!s.host_oom)
    std::fprintf(out, "fits: %.2f of %.2f GiB\n", s.peak_memory_gb, e.hardware.gpu.memory_gb);
}

void run_validate(const ValidateOptions& o, CommandContext& ctx) {
  const models::ExperimentSpec experiment = config::load_experiment(o.experiment, o.overrides);
  if (!experiment.simai_workload.empty())
    throw ConfigError(o.experiment + ": validate needs a model; this experiment runs a SimAI workload file");
  const models::memory::PlanSummary summary = models::memory::summarize_plan(experiment);
  // Faults naming what the fabric lacks, or cutting it apart, are refused here as by `run`.
  if (!experiment.faults.empty()) models::network::build_experiment_cluster(experiment);
  ctx.exit_code = summary.fits() ? 0 : 3;
  if (!ctx.is_root()) return;
  const StateBytes bytes = state_bytes_per_parameter(experiment.training);
  print_text(text_stream({o.json_path}), experiment, summary, bytes);  // stderr when --json -
  if (!o.json_path.empty()) {
    write_file_atomically(o.json_path, to_json(summary, bytes).dump(2) + "\n", "--json");
  }
}

}  // namespace

void add_validate_command(CLI::App& app, CommandContext& ctx) {
  auto options = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand("validate", "check an experiment; print its memory plan and FLOPs (no simulation)");
  cmd->add_option("experiment", options->experiment, "experiment YAML file")->required();
  cmd->add_option("--set", options->overrides, "override a configuration key: --set parallelism.tp=4 (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--json", options->json_path, "also write the plan as JSON");
  cmd->callback([options, &ctx] { run_validate(*options, ctx); });
}

}  // namespace pf::cli
