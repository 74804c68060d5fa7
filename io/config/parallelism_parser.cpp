#include "io/config/parallelism_parser.h"

#include <cstdint>

#include "io/config/config_error.h"
#include "io/config/map_reader.h"

namespace pf::config {

namespace {

const EnumNames<models::PipelineSchedule> kSchedules{{"1f1b", models::PipelineSchedule::one_f_one_b},
                                                      {"interleaved", models::PipelineSchedule::interleaved}};

std::string product_text(const models::ParallelismSpec& p) {
  const std::int64_t product = std::int64_t{p.tp} * p.pp * p.dp * p.cp;
  return "tp*pp*dp*cp = " + std::to_string(p.tp) + "*" + std::to_string(p.pp) + "*" + std::to_string(p.dp) + "*" +
         std::to_string(p.cp) + " = " + std::to_string(product);
}

void fit_dp(const ConfigNode& node, bool dp_given, models::ParallelismSpec& p, int gpu_count) {
  const std::int64_t model_parallel = std::int64_t{p.tp} * p.pp * p.cp;
  const std::string gpus = std::to_string(gpu_count) + " GPUs (topology.nodes * hardware.node.gpus_per_node)";
  if (!dp_given) {
    // dp = gpus / (tp*pp*cp) must come out whole.
    if (gpu_count % model_parallel != 0) {
      fail_expected(node, "tp*pp*cp to divide " + gpus,
                    "tp*pp*cp = " + std::to_string(model_parallel) + " (dp is omitted and cannot be derived)");
    }
    p.dp = static_cast<int>(gpu_count / model_parallel);
    return;
  }
  if (model_parallel * p.dp != gpu_count) {
    fail_expected(node, "tp*pp*dp*cp to equal " + gpus, product_text(p));
  }
}

}  // namespace

const char* schedule_name(models::PipelineSchedule schedule) {
  return schedule == models::PipelineSchedule::interleaved ? "interleaved" : "1f1b";
}

// Experts: with expert_tp = tp (the default) EP is carved out of dp; with
// expert_tp = 1 out of the stage's tp*cp*dp ranks (Megatron's MoE parallel
// folding), which needs sequence parallelism when tp > 1 (Megatron-Core
// asserts it for MoE with TP: otherwise every TP rank would dispatch the same
// tokens). Other expert TP sizes are not modelled.
void check_expert_layout(const ConfigNode& node, const models::ParallelismSpec& p) {
  const std::string ep = std::to_string(p.ep);
  if (p.expert_tp > 0 && p.expert_tp != 1 && p.expert_tp != p.tp) {
    fail_expected(nearest_node(node, "expert_tp"), "1 or tp (" + std::to_string(p.tp) +
                  "): an expert TP group other than the dense layers' is not modelled", std::to_string(p.expert_tp));
  }
  if (p.etp() == p.tp) {
    if (p.dp % p.ep != 0) {
      fail_expected(nearest_node(node, "ep"),
                    "a divisor of dp (" + std::to_string(p.dp) + "): experts are carved out of data parallelism", ep);
    }
    return;
  }
  const int stage = p.tp * p.cp * p.dp;
  if (stage % p.ep != 0) {
    fail_expected(nearest_node(node, "ep"),
                  "a divisor of tp*cp*dp (" + std::to_string(stage) + ") with expert_tp 1", ep);
  }
  if (p.tp > 1 && !p.sequence_parallel) {
    fail_expected(nearest_node(node, "expert_tp"), "sequence_parallel: true with expert_tp 1 and tp > 1", "1");
  }
}

models::ParallelismSpec parse_parallelism(const ConfigNode& node, int gpu_count) {
  MapReader r(node);
  models::ParallelismSpec p;
  p.tp = static_cast<int>(r.get_int_or("tp", 1, 1, kIntMax));
  p.pp = static_cast<int>(r.get_int_or("pp", 1, 1, kIntMax));
  const bool dp_given = r.find("dp") != nullptr;
  p.dp = static_cast<int>(r.get_int_or("dp", 1, 1, kIntMax));
  p.cp = static_cast<int>(r.get_int_or("cp", 1, 1, kIntMax));
  p.ep = static_cast<int>(r.get_int_or("ep", 1, 1, kIntMax));
  p.expert_tp = static_cast<int>(r.get_int_or("expert_tp", 0, 1, kIntMax));
  p.sequence_parallel = r.get_bool_or("sequence_parallel", false);
  p.pipeline_schedule = r.get_enum_or("pipeline_schedule", models::PipelineSchedule::one_f_one_b, kSchedules);
  p.virtual_stages = static_cast<int>(r.get_int_or("virtual_stages", 1, 1, kIntMax));
  p.zero_stage = static_cast<int>(r.get_int_or("zero_stage", 0, 0, 3));
  for (const std::int64_t layers : r.get_int_list_or("layers_per_stage", 0, kIntMax)) {
    p.layers_per_stage.push_back(static_cast<int>(layers));
  }
  r.finish();

  fit_dp(node, dp_given, p, gpu_count);
  check_expert_layout(node, p);
  if (p.virtual_stages > 1 && p.pipeline_schedule != models::PipelineSchedule::interleaved) {
    fail_expected(nearest_node(node, "virtual_stages"), "1 unless pipeline_schedule is interleaved",
                  std::to_string(p.virtual_stages));
  }
  if (p.pipeline_schedule == models::PipelineSchedule::interleaved && p.virtual_stages > 1 && p.pp < 2) {
    fail_expected(nearest_node(node, "pp"), "pp >= 2 for the interleaved schedule", std::to_string(p.pp));
  }
  const std::size_t chunks = static_cast<std::size_t>(p.pp) * static_cast<std::size_t>(p.virtual_stages);
  if (!p.layers_per_stage.empty() && p.layers_per_stage.size() != chunks) {
    fail_expected(nearest_node(node, "layers_per_stage"),
                  "pp*virtual_stages = " + std::to_string(chunks) + " entries",
                  std::to_string(p.layers_per_stage.size()) + " entries");
  }
  return p;
}

}  // namespace pf::config
