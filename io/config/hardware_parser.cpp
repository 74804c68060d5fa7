#include "io/config/hardware_parser.h"

#include <filesystem>

#include "io/config/config_error.h"
#include "io/config/map_reader.h"
#include "io/config/part_references.h"
#include "io/config/scalar_values.h"
#include "models/uncertainty/parameters.h"

namespace pf::config {

namespace {

constexpr models::Dtype kDtypes[] = {models::Dtype::bf16, models::Dtype::fp16, models::Dtype::fp8,
                                     models::Dtype::tf32, models::Dtype::fp32};

std::map<models::Dtype, double> parse_peaks(const ConfigNode& node) {
  MapReader r(node);
  std::map<models::Dtype, double> peaks;
  for (const models::Dtype dtype : kDtypes) {
    if (r.find(dtype_name(dtype))) peaks[dtype] = r.get_double(dtype_name(dtype), NumberRange::positive());
  }
  r.finish();
  if (peaks.empty()) fail_expected(node, "at least one of bf16, fp16, fp8, tf32, fp32 (dense TFLOP/s)", "none");
  return peaks;
}

models::HeadDimRates parse_head_dim_rates(const ConfigNode& node) {
  MapReader r(node);
  models::HeadDimRates h;
  h.measured = true;
  // A kernel runs no faster than at the head dimension it is tuned for (128).
  h.hd64 = r.get_double_or("hd64", h.hd64, NumberRange::fraction());
  h.hd192 = r.get_double_or("hd192", h.hd192, NumberRange::fraction());
  h.hd256 = r.get_double_or("hd256", h.hd256, NumberRange::fraction());
  r.finish();
  return h;
}

models::OpEfficiency parse_efficiency(const ConfigNode& node) {
  MapReader r(node);
  models::OpEfficiency e;
  // Fractions of the datasheet peak a kernel class reaches: above 1 is impossible.
  e.gemm = r.get_double_or("gemm", e.gemm, NumberRange::fraction());
  e.gemm_fp8 = r.get_double_or("gemm_fp8", e.gemm_fp8, NumberRange::fraction());
  e.attention = r.get_double_or("attention", e.attention, NumberRange::fraction());
  e.attention_flash2 = r.get_double_or("attention_flash2", e.attention_flash2, NumberRange::fraction());
  e.attention_flash_triton =
      r.get_double_or("attention_flash_triton", e.attention_flash_triton, NumberRange::fraction());
  e.attention_kv_overhead =
      r.get_double_or("attention_kv_overhead", e.attention_kv_overhead, NumberRange::non_negative());
  e.attention_backward = r.get_double_or("attention_backward", e.attention_backward, NumberRange::fraction());
  if (const ConfigNode* rates = r.find("attention_head_dim")) e.attention_head_dim = parse_head_dim_rates(*rates);
  if (const ConfigNode* rates = r.find("attention_flash2_head_dim")) {
    e.attention_flash2_head_dim = parse_head_dim_rates(*rates);
  }
  e.elementwise = r.get_double_or("elementwise", e.elementwise, NumberRange::fraction());
  e.communication_overhead_us =
      r.get_double_or("communication_overhead_us", e.communication_overhead_us, NumberRange::non_negative());
  e.overlap_sm_cost = r.get_double_or("overlap_sm_cost", e.overlap_sm_cost, NumberRange::non_negative());
  e.overlap_slowdown = r.get_double_or("overlap_slowdown", e.overlap_slowdown, NumberRange::at_least(1.0));
  r.finish();
  return e;
}

models::GemmModelSpec parse_gemm_model(const ConfigNode& node) {
  MapReader r(node);
  models::GemmModelSpec g;
  g.memory_efficiency = r.get_double_or("memory_efficiency", g.memory_efficiency, NumberRange::fraction());
  g.unaligned_efficiency = r.get_double_or("unaligned_efficiency", g.unaligned_efficiency, NumberRange::fraction());
  g.unaligned_memory_efficiency =
      r.get_double_or("unaligned_memory_efficiency", g.unaligned_memory_efficiency, NumberRange::fraction());
  g.odd_efficiency = r.get_double_or("odd_efficiency", g.odd_efficiency, NumberRange::fraction());
  g.odd_memory_efficiency = r.get_double_or("odd_memory_efficiency", g.odd_memory_efficiency, NumberRange::fraction());
  g.k_overhead = r.get_double_or("k_overhead", g.k_overhead, NumberRange::non_negative());
  g.tile_exponent = r.get_double_or("tile_exponent", g.tile_exponent, NumberRange::non_negative());
  g.fixed_us = r.get_double_or("fixed_us", g.fixed_us, NumberRange::non_negative());
  r.finish();
  return g;
}

std::string parse_calibration(MapReader& r) {
  const ConfigNode* value = r.find("calibration");
  if (!value) return "";
  if (!value->is_scalar()) fail_expected(*value, "the path of a kernel-time CSV file or a folder of them");
  const std::filesystem::path file = resolve_path(*value);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec) && !std::filesystem::is_directory(file, ec)) {
    fail_expected(*value, "the path of an existing kernel-time CSV file or folder", "'" + value->text() +
                  "' (no such file or folder: " + file.string() + ")");
  }
  return file.string();
}

// tdp_w, power_limit_w, clock_power_exponent (models/compute/power_limit.h).
// A limit needs the TDP it is below: nvidia-smi cannot raise a board past its
// rated power, and without the TDP the clock it leaves is unknown.
void parse_power(MapReader& r, models::GpuSpec& gpu) {
  gpu.tdp_w = r.get_double_or("tdp_w", gpu.tdp_w, NumberRange::positive());
  gpu.clock_power_exponent = r.get_double_or("clock_power_exponent", gpu.clock_power_exponent, NumberRange::positive());
  const ConfigNode* limit = r.find("power_limit_w");
  if (!limit) return;
  gpu.power_limit_w = as_double(*limit, NumberRange::positive());
  if (gpu.tdp_w <= 0) {
    fail_expected(*limit, "a hardware file that states gpu.tdp_w (the rated board power the limit is below)",
                  "power_limit_w without tdp_w");
  }
  if (gpu.power_limit_w > gpu.tdp_w) {
    fail_expected(*limit, "a power limit of at most gpu.tdp_w = " + format_number(gpu.tdp_w) + " W",
                  format_number(gpu.power_limit_w) + " W");
  }
}

models::GpuSpec parse_gpu(const ConfigNode& node) {
  MapReader r(node);
  models::GpuSpec gpu;
  gpu.name = r.get_string_or("name", "gpu");
  gpu.sm_count = static_cast<int>(r.get_int_or("sm_count", 0, 0, kIntMax));
  gpu.peak_tflops = parse_peaks(r.require("peak_tflops", "a mapping of dtype to dense TFLOP/s"));
  gpu.memory_gb = r.get_double("memory_gb", NumberRange::positive());
  gpu.memory_bandwidth_gbps = r.get_double("memory_bandwidth_gbps", NumberRange::positive());
  if (const ConfigNode* efficiency = r.find("efficiency")) gpu.efficiency = parse_efficiency(*efficiency);
  if (const ConfigNode* gemm = r.find("gemm")) gpu.gemm_model = parse_gemm_model(*gemm);
  gpu.sustained_clock = r.get_double_or("sustained_clock", gpu.sustained_clock, NumberRange::fraction());
  parse_power(r, gpu);
  gpu.speed_spread = r.get_double_or("speed_spread", gpu.speed_spread, NumberRange::closed(0.0, 0.5));
  gpu.speed_fluctuation = r.get_double_or("speed_fluctuation", gpu.speed_fluctuation, NumberRange::closed(0.0, 0.5));
  gpu.calibration = parse_calibration(r);
  gpu.calibration_attention = r.get_enum_or("calibration_attention", gpu.calibration_attention, measured_attention_kernels());
  r.finish();
  return gpu;
}

models::NodeSpec parse_node(const ConfigNode& node) {
  MapReader r(node);
  models::NodeSpec n;
  n.gpus_per_node = static_cast<int>(r.get_int("gpus_per_node", 1, kIntMax));
  n.nvlink_bandwidth_gbps = r.get_double("nvlink_bandwidth_gbps", NumberRange::positive());
  n.nvlink_efficiency = r.get_double_or("nvlink_efficiency", n.nvlink_efficiency, NumberRange::fraction());
  n.nvlink_latency_us = r.get_double("nvlink_latency_us", NumberRange::non_negative());
  n.nics_per_node = static_cast<int>(r.get_int("nics_per_node", 1, kIntMax));
  n.nic_bandwidth_gbps = r.get_double("nic_bandwidth_gbps", NumberRange::positive());
  n.nic_efficiency = r.get_double_or("nic_efficiency", n.nic_efficiency, NumberRange::fraction());
  n.nic_latency_us = r.get_double("nic_latency_us", NumberRange::non_negative());
  n.pcie_bandwidth_gbps = r.get_double("pcie_bandwidth_gbps", NumberRange::positive());
  n.host_link_gbps = r.get_double_or("host_link_gbps", 0.0, NumberRange::positive());
  n.host_memory_gb = r.get_double_or("host_memory_gb", 0.0, NumberRange::positive());
  n.host_overhead_scale = r.get_double_or("host_overhead_scale", n.host_overhead_scale, NumberRange::positive());
  r.finish();
  return n;
}

const EnumNames<models::NcclGeneration> kGenerations{{"volta", models::NcclGeneration::volta},
                                                     {"ampere", models::NcclGeneration::ampere},
                                                     {"hopper", models::NcclGeneration::hopper},
                                                     {"blackwell", models::NcclGeneration::blackwell}};

// Without nccl.generation: from the GPU's name (NVIDIA's product prefixes),
// Ampere's figures when the name says nothing.
models::NcclGeneration generation_of(const std::string& name) {
  const auto has = [&](const char* s) { return name.find(s) != std::string::npos; };
  if (has("V100")) return models::NcclGeneration::volta;
  if (has("H100") || has("H200") || has("H20") || has("H800") || has("GH200")) return models::NcclGeneration::hopper;
  if (has("B200") || has("B100") || has("B300") || has("GB200")) return models::NcclGeneration::blackwell;
  return models::NcclGeneration::ampere;
}

models::NcclSpec parse_nccl(const ConfigNode* node, const std::string& gpu_name) {
  models::NcclSpec n;
  n.generation = generation_of(gpu_name);
  if (node == nullptr) return n;
  MapReader r(*node);
  n.generation = r.get_enum_or("generation", n.generation, kGenerations);
  n.latency_scale = r.get_double_or("latency_scale", n.latency_scale, NumberRange::positive());
  n.nvls = r.get_bool_or("nvls", n.nvls);
  n.collnet = r.get_bool_or("collnet", n.collnet);
  n.pat = r.get_bool_or("pat", n.pat);
  n.local_pass_gbps = r.get_double_or("local_pass_gbps", n.local_pass_gbps, NumberRange::non_negative());
  n.p2p_nvlink_efficiency =
      r.get_double_or("p2p_nvlink_efficiency", n.p2p_nvlink_efficiency, NumberRange::fraction());
  r.finish();
  return n;
}

// `uncertainty:` — a sequence of priors, one per sampled parameter
// (models/uncertainty/README.md): {key, low, high, source, measure}, key
// relative to this file ("gpu.efficiency.gemm"), low <= 1 <= high.
std::vector<models::PriorSpec> parse_priors(const ConfigNode* node) {
  std::vector<models::PriorSpec> priors;
  if (node == nullptr) return priors;
  if (!node->is_sequence()) fail_expected(*node, "a sequence of {key, low, high, source, measure} priors");
  for (const ConfigNode& item : node->items()) {
    MapReader r(item);
    models::PriorSpec p;
    const ConfigNode& key = r.require("key", "a sampled parameter under this file, e.g. gpu.efficiency.gemm");
    p.key = r.get_string("key");
    const std::string full = "hardware." + p.key;
    if (models::uncertainty::find_parameter(full) == nullptr || !full.starts_with("hardware.")) {
      std::string known;
      for (const auto& q : models::uncertainty::parameters()) {
        if (q.key.starts_with("hardware.")) known += (known.empty() ? "" : " | ") + std::string(q.key.substr(9));
      }
      fail_expected(key, "one of " + known, "'" + p.key + "'");
    }
    for (const models::PriorSpec& other : priors) {
      if (other.key == p.key) fail_at(key, "prior for '" + p.key + "' given twice");
    }
    p.low = r.get_double("low", NumberRange::positive());
    p.high = r.get_double("high", NumberRange::positive());
    if (p.low > 1.0) fail_expected(*r.find("low"), "a multiplier of at most 1 (the file's value is the mode)");
    if (p.high < 1.0) fail_expected(*r.find("high"), "a multiplier of at least 1 (the file's value is the mode)");
    p.source = r.get_string_or("source", "");
    p.measure = r.get_string_or("measure", "");
    r.finish();
    priors.push_back(std::move(p));
  }
  return priors;
}

}  // namespace

const char* dtype_name(models::Dtype dtype) {
  switch (dtype) {
    case models::Dtype::bf16: return "bf16";
    case models::Dtype::fp16: return "fp16";
    case models::Dtype::fp8: return "fp8";
    case models::Dtype::tf32: return "tf32";
    case models::Dtype::fp32: return "fp32";
  }
  return "bf16";
}

models::HardwareSpec parse_hardware(const ConfigNode& node) {
  MapReader r(node);
  models::HardwareSpec hw;
  hw.gpu = parse_gpu(r.require("gpu", "a mapping describing the GPU"));
  hw.node = parse_node(r.require("node", "a mapping describing the GPU server"));
  hw.nccl = parse_nccl(r.find("nccl"), hw.gpu.name);
  hw.priors = parse_priors(r.find("uncertainty"));
  r.finish();
  return hw;
}

const EnumNames<models::AttentionKernel>& measured_attention_kernels() {
  static const EnumNames<models::AttentionKernel> names{{"flash", models::AttentionKernel::flash},
                                                        {"flash2", models::AttentionKernel::flash2},
                                                        {"flash_triton", models::AttentionKernel::flash_triton}};
  return names;
}

}  // namespace pf::config
