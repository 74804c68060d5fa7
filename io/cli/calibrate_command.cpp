// `preflight calibrate`: fits a GPU's GEMM model (models/compute/gemm_fit.h)
// to measured kernel times and writes a calibrated hardware file.
//
//   preflight calibrate --hardware configs/hardware/h100-sxm-80gb.yaml
//       --data my_gemms.csv [--data more/] [--holdout 0.5] [--seed 1] [--fix efficiency.gemm]
//       -o h100-calibrated.yaml
//
// Prints, per kernel class, the error before and after: GEMMs through the
// fitted shape model (on held-out rows when --holdout is given, then refitted
// on every row for the file), attention and RMSNorm through the k-NN tables
// (their held-out error, CALIBRATION.md), which the written file points at
// with gpu.calibration so `run` uses them where they apply.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/communicator.h"
#include "core/error.h"
#include "io/cli/output_files.h"
#include "io/cli/collective_fit.h"
#include "io/cli/command.h"
#include "io/config/topology_parser.h"
#include "io/config/hardware_parser.h"
#include "io/config/yaml_reader.h"
#include "models/compute/calibrated_estimator.h"
#include "models/compute/calibration_table.h"
#include "models/compute/gemm_fit.h"

namespace pf::cli {
namespace {

struct CalibrateOptions {
  std::string hardware;
  std::vector<std::string> data;
  std::vector<std::string> nccl_tests;  // measured collective tables
  std::string topology;                 // what they ran on (default: one switch)
  int gpus = 0;                         // GPU count of the tables, when they do not say
  std::string op;                       // their operation, when they do not say
  std::string gpus_per_thread;          // nccl-tests -g of tables that do not say: N, or "all"
  std::string output;
  std::vector<std::string> fixed;
  double holdout = 0.0;
  std::uint64_t seed = 1;
  std::string attention_kernel;  // the flash kernel the attention tables timed; empty: the hardware file's
};

// The kernel a name of config::measured_attention_kernels() stands for (the option is checked against them).
models::AttentionKernel measured_attention_kernel(const std::string& name) {
  for (const auto& [n, kernel] : config::measured_attention_kernels()) {
    if (n == name) return kernel;
  }
  return models::AttentionKernel::flash;
}

void print_error(const char* label, const models::GemmFitError& e) {
  std::printf("  %-28s rows %6d  median |err| %5.1f %%  p90 %5.1f %%  mean %5.1f %%  median signed %+5.1f %%\n", label,
              e.rows, 100 * e.median, 100 * e.p90, 100 * e.mean, 100 * e.median_signed);
}

std::vector<models::Measurement> gemm_rows(const std::vector<models::CalibrationTable>& tables) {
  std::vector<models::Measurement> rows;
  for (const auto& t : tables) {
    if (t.kind == models::KernelTableKind::gemm) rows.insert(rows.end(), t.rows.begin(), t.rows.end());
  }
  return rows;
}

std::vector<std::string> measured_attention_names() {
  std::vector<std::string> names;
  for (const auto& entry : config::measured_attention_kernels()) names.push_back(entry.first);
  return names;
}

// The configuration name of the kernel an attention table timed.
std::string kernel_name(models::FlashKernel timed) {
  for (const auto& [name, kernel] : config::measured_attention_kernels()) {
    if (models::flash_kernel(kernel) == timed) return name;
  }
  return "flash";
}

void report_table_classes(const models::GpuSpec& gpu, const std::vector<models::CalibrationTable>& tables) {
  const models::Roofline roofline(gpu);
  for (const auto& t : tables) {
    if (t.kind == models::KernelTableKind::gemm) continue;
    const models::CalibratedEstimator e(t, roofline);
    std::string label = std::string(to_string(t.kind)) + " (" + std::filesystem::path(t.source).filename().string();
    if (t.kind == models::KernelTableKind::attention) label += ", " + kernel_name(t.attention_kernel);
    std::printf("  %-28s rows %6zu  k-NN held-out error %5.1f %% (leave-one-out), roofline %5.1f %%\n",
                (label + ")").c_str(),
                t.rows.size(), 100 * e.error_curve().at(0), 100 * e.roofline_error());
  }
}

// A calibrated hardware file: a header naming its inputs and the fit, then the YAML.
std::string calibrated_text(const YAML::Node& root, const std::string& hardware, const std::vector<std::string>& data,
                            const char* fit) {
  YAML::Emitter emit;
  emit << root;
  std::ostringstream text;
  text << "# Calibrated by `preflight calibrate` from " << hardware << " and";
  for (const auto& d : data) text << ' ' << d;
  text << "\n# " << fit << '\n' << emit.c_str() << '\n';
  return text.str();
}

// Calibration narrows the priors (models/uncertainty/README.md): the fitted
// parameter's `uncertainty:` entry becomes +-(the fit's error), at least 2 %,
// replacing the hardware file's own entry for that key if it had one.
void set_prior(YAML::Node& root, const std::string& key, double error, const std::string& source,
               const char* measure) {
  const double e = std::round(std::max(0.02, error) * 1e4) / 1e4;
  YAML::Node entry;
  entry.SetStyle(YAML::EmitterStyle::Flow);
  entry["key"] = key;
  entry["low"] = std::max(0.01, 1 - e);
  entry["high"] = 1 + e;
  entry["source"] = source;
  entry["measure"] = measure;
  YAML::Node priors = root["uncertainty"];
  YAML::Node kept(YAML::NodeType::Sequence);
  if (priors && priors.IsSequence()) {
    for (const YAML::Node& p : priors) {
      if (!(p["key"] && p["key"].as<std::string>() == key)) kept.push_back(p);
    }
  }
  kept.push_back(entry);
  root["uncertainty"] = kept;
}

std::string inputs(const std::vector<std::string>& files) {
  std::string out;
  for (const auto& f : files) out += (out.empty() ? "" : ", ") + std::filesystem::path(f).filename().string();
  return out;
}

// The hardware file's YAML with the fitted GEMM parameters and the data path.
std::string calibrated_yaml(const CalibrateOptions& o, const models::GpuSpec& fitted,
                            const models::GemmFitError& error, bool fp8_rate_only) {
  YAML::Node root = YAML::LoadFile(o.hardware);
  YAML::Node gpu = root["gpu"];
  gpu["sm_count"] = fitted.sm_count;
  gpu["efficiency"]["gemm"] = fitted.efficiency.gemm;
  if (fitted.efficiency.gemm_fp8 > 0) gpu["efficiency"]["gemm_fp8"] = fitted.efficiency.gemm_fp8;
  const models::GemmModelSpec& g = fitted.gemm_model;
  YAML::Node gemm;
  gemm["memory_efficiency"] = g.memory_efficiency;
  gemm["unaligned_efficiency"] = g.unaligned_efficiency;
  gemm["unaligned_memory_efficiency"] = g.unaligned_memory_efficiency;
  gemm["odd_efficiency"] = g.odd_efficiency;
  gemm["odd_memory_efficiency"] = g.odd_memory_efficiency;
  gemm["k_overhead"] = g.k_overhead;
  gemm["tile_exponent"] = g.tile_exponent;
  gemm["fixed_us"] = g.fixed_us;
  gpu["gemm"] = gemm;
  if (o.data.size() == 1) {
    const auto out_dir = std::filesystem::absolute(o.output).parent_path();
    gpu["calibration"] = std::filesystem::relative(std::filesystem::absolute(o.data.front()), out_dir).string();
  }
  if (!o.attention_kernel.empty()) gpu["calibration_attention"] = o.attention_kernel;
  char fit[200];
  std::snprintf(fit, sizeof fit, "GEMM fit over %d rows: median |error| %.1f%%, p90 %.1f%%.", error.rows,
                100 * error.median, 100 * error.p90);
  // The priors sample efficiency.gemm; an fp8-only fit leaves it as it was.
  if (!fp8_rate_only) {
    set_prior(root, "gpu.efficiency.gemm", error.median, "preflight calibrate on " + inputs(o.data) + ": " + fit,
              "GEMM times at the shapes of the model you plan (add them to the calibration table)");
  }
  return calibrated_text(root, o.hardware, o.data, fit);
}

void print_tables(const char* label, const models::HardwareSpec& hw, const models::TopologySpec& topo,
                  const std::vector<NcclTestsTable>& tables, double launch_us) {
  std::printf("  %s\n", label);
  for (const NcclTestsTable& t : tables) {
    const TableError e = table_error(hw, topo, t, launch_us);
    std::printf("    %-40s %-15s %3d GPUs  rows %3d  mean |time err| %5.1f %%  median signed %+6.1f %%\n",
                std::filesystem::path(t.source).filename().string().c_str(), models::collective::to_string(t.op),
                t.gpus, e.rows, 100 * e.mean_abs, 100 * e.median_signed);
  }
}

// The hardware file's YAML with the fitted collective figures.
std::string collective_yaml(const CalibrateOptions& o, const CollectiveFit& fit) {
  YAML::Node root = YAML::LoadFile(o.hardware);
  const models::HardwareSpec& hw = fit.hardware;
  root["gpu"]["efficiency"]["communication_overhead_us"] = hw.gpu.efficiency.communication_overhead_us;
  root["nccl"]["latency_scale"] = hw.nccl.latency_scale;
  if (fit.fitted_local_pass) root["nccl"]["local_pass_gbps"] = hw.nccl.local_pass_gbps;
  if (fit.across_servers) root["node"]["nic_efficiency"] = hw.node.nic_efficiency;
  else if (fit.fitted_link) root["node"]["nvlink_efficiency"] = hw.node.nvlink_efficiency;
  if (fit.fitted_p2p) root["nccl"]["p2p_nvlink_efficiency"] = hw.nccl.p2p_nvlink_efficiency;
  char line[200];
  std::snprintf(line, sizeof line, "Collective fit: mean |log time error| %.1f%%.", 100 * fit.error);
  const std::string source = "preflight calibrate on " + inputs(o.nccl_tests) + ": " + line;
  const char* measure = "nccl-tests of the collectives and sizes the model runs, on this system";
  set_prior(root, "nccl.latency_scale", fit.error, source, measure);
  set_prior(root, "gpu.efficiency.communication_overhead_us", fit.error, source, measure);
  if (fit.fitted_link)
    set_prior(root, fit.across_servers ? "node.nic_efficiency" : "node.nvlink_efficiency", fit.error, source, measure);
  return calibrated_text(root, o.hardware, o.nccl_tests, line);
}

// A table whose time stays flat while the size doubles twice, at the small
// end, looks host-bound: nccl-tests launching several GPUs from one thread
// (-g) that the tables do not say; the user is told how to say it.
void hint_host_bound(const std::vector<NcclTestsTable>& tables) {
  for (const NcclTestsTable& t : tables) {
    if (t.gpus_per_thread > 1 || t.rows.size() < 3) continue;
    const double a = t.rows[0].time_us, c = t.rows[2].time_us;
    if (t.rows[2].bytes < 4 * t.rows[0].bytes || c > 1.1 * a) continue;
    std::printf("note: %s stays at %.1f-%.1f us from %llu to %llu bytes, as if host-bound: if it ran as "
                "all_reduce_perf -g N (one thread launching every GPU), give --gpus-per-thread all\n",
                std::filesystem::path(t.source).filename().string().c_str(), a, c,
                static_cast<unsigned long long>(t.rows[0].bytes), static_cast<unsigned long long>(t.rows[2].bytes));
  }
}

void run_collective_calibration(const CalibrateOptions& o, const models::HardwareSpec& hw, CommandContext& ctx) {
  std::vector<NcclTestsTable> read;
  const int per_thread = o.gpus_per_thread.empty() ? 0 : parse_gpus_per_thread(o.gpus_per_thread);
  for (const auto& f : o.nccl_tests) read.push_back(read_nccl_tests(f, o.gpus, o.op, per_thread));
  const std::vector<NcclTestsTable> tables = power_of_two_rows(std::move(read));
  if (tables.empty()) throw ConfigError("calibrate --nccl-tests: expected rows at power-of-two sizes, found none");
  const models::TopologySpec topo =
      o.topology.empty() ? bench_topology(hw, tables) : config::parse_topology(config::read_yaml_file(o.topology, "topology"));
  if (!ctx.is_root()) return;
  std::printf("calibrating %s's collectives on %zu nccl-tests tables (power-of-two sizes)\n", hw.gpu.name.c_str(),
              tables.size());
  print_tables("preset (host launch not priced):", hw, topo, tables, 0);
  hint_host_bound(tables);
  if (o.holdout > 0 && tables.size() >= 2) {
    // Fit on every other table by GPU count, check on the rest.
    std::vector<NcclTestsTable> sorted = tables, fit_on, check_on;
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.gpus < b.gpus; });
    for (std::size_t i = 0; i < sorted.size(); ++i) (i % 2 == 0 ? fit_on : check_on).push_back(sorted[i]);
    const CollectiveFit half = fit_collectives(hw, topo, fit_on);
    print_tables("fitted on every other table, held-out tables:", half.hardware, topo, check_on, half.launch_us);
  }
  const CollectiveFit fit = fit_collectives(hw, topo, tables);
  print_tables("fitted on all:", fit.hardware, topo, tables, fit.launch_us);
  std::printf("fitted: nccl.latency_scale %.3f  communication_overhead_us %.2f", fit.hardware.nccl.latency_scale,
              fit.hardware.gpu.efficiency.communication_overhead_us);
  if (fit.fitted_link)
    std::printf("  %s %.4f", fit.across_servers ? "node.nic_efficiency" : "node.nvlink_efficiency",
                fit.across_servers ? fit.hardware.node.nic_efficiency : fit.hardware.node.nvlink_efficiency);
  if (fit.fitted_p2p) std::printf("  nccl.p2p_nvlink_efficiency %.4f", fit.hardware.nccl.p2p_nvlink_efficiency);
  if (fit.fitted_local_pass) std::printf("  nccl.local_pass_gbps %.1f", fit.hardware.nccl.local_pass_gbps);
  std::printf("  (mean |log err| %.1f %%)\n", 100 * fit.error);
  if (fit.fitted_launch)
    std::printf("the tables' host: %.2f us to launch one GPU's part of a call (nccl-tests -g; a property of the "
                "measurement, not written to the hardware file; preflight collective --launch-us)\n",
                fit.launch_us);
  if (!o.output.empty()) {
    write_file_atomically(o.output, collective_yaml(o, fit), "calibrate -o");
    std::printf("wrote %s\n", o.output.c_str());
  }
}

void run_calibrate(const CalibrateOptions& o, CommandContext& ctx) {
  if (o.data.empty() == o.nccl_tests.empty())
    throw ConfigError("calibrate: expected --data (kernel tables) or --nccl-tests (collective tables), found " +
                      std::string(o.data.empty() ? "neither" : "both"));
  // Standard output carries the fit report, which would run into the YAML.
  if (destination_of(o.output) == Destination::standard_output)
    throw ConfigError("calibrate -o: expected a file for the calibrated YAML, found standard output (" + o.output +
                      "), which carries the fit report");
  // The fit of a large table takes a while: an unwritable -o is found first.
  run_on_root_agreed(core::Communicator::world(), [&] { probe_output_files({{o.output, "calibrate -o"}}); });
  if (!o.nccl_tests.empty()) {
    run_collective_calibration(o, config::parse_hardware(config::read_yaml_file(o.hardware, "hardware")), ctx);
    return;
  }
  const models::HardwareSpec hw = config::parse_hardware(config::read_yaml_file(o.hardware, "hardware"));
  std::vector<models::CalibrationTable> tables;
  const models::AttentionKernel measured =
      o.attention_kernel.empty() ? hw.gpu.calibration_attention : measured_attention_kernel(o.attention_kernel);
  for (const auto& d : o.data) {
    for (auto& t : models::load_calibration(d)) {
      models::set_attention_kernel(t, models::flash_kernel(measured));
      tables.push_back(std::move(t));
    }
  }
  const std::vector<models::Measurement> gemms = gemm_rows(tables);
  if (gemms.empty()) throw ConfigError("calibrate --data: expected at least one GEMM table (M,N,K,t_measured_ms), found none");
  if (hw.gpu.sm_count <= 0) throw ConfigError(o.hardware + ": gpu.sm_count: expected the GPU's SM count (> 0) to fit the GEMM model, found none");
  if (!ctx.is_root()) return;
  std::printf("calibrating %s (%d SMs) on %zu GEMM rows\n", hw.gpu.name.c_str(), hw.gpu.sm_count, gemms.size());
  const std::vector<std::string> free = models::gemm_fitted_parameters(hw.gpu, gemms);
  const bool fp8_rate_only = free.size() == 1 && free.front() == "efficiency.gemm_fp8";
  if (fp8_rate_only) {
    std::printf("fp8 rows only: fitting efficiency.gemm_fp8; the shape terms are the 16-bit GEMMs' (fit them on a "
                "bf16/fp16 table)\n");
  }
  std::printf("GEMM model (models/compute/gemm_model.h):\n");
  print_error("preset, all rows", models::gemm_model_error(hw.gpu, gemms));
  if (o.holdout > 0) {
    const models::RowSplit split = models::split_rows(gemms, o.holdout, o.seed);
    const models::GpuSpec half = models::fit_gemm_model(hw.gpu, split.fit, o.fixed);
    print_error("fitted, held-out rows", models::gemm_model_error(half, split.held_out));
  }
  const models::GpuSpec fitted = models::fit_gemm_model(hw.gpu, gemms, o.fixed);
  const models::GemmFitError all = models::gemm_model_error(fitted, gemms);
  print_error("fitted on all, all rows", all);
  const models::GemmModelSpec& g = fitted.gemm_model;
  std::printf("fitted: efficiency.gemm %.4f  memory %.4f  unaligned %.4f/%.4f  odd %.4f/%.4f  k_overhead %.1f  "
              "tile_exponent %.4f  fixed_us %.2f",
              fitted.efficiency.gemm, g.memory_efficiency, g.unaligned_efficiency, g.unaligned_memory_efficiency,
              g.odd_efficiency, g.odd_memory_efficiency, g.k_overhead, g.tile_exponent, g.fixed_us);
  if (fitted.efficiency.gemm_fp8 > 0) std::printf("  efficiency.gemm_fp8 %.4f", fitted.efficiency.gemm_fp8);
  std::printf("\n");
  report_table_classes(fitted, tables);
  if (!o.output.empty()) {
    write_file_atomically(o.output, calibrated_yaml(o, fitted, all, fp8_rate_only), "calibrate -o");
    std::printf("wrote %s\n", o.output.c_str());
  }
}

}  // namespace

void add_calibrate_command(CLI::App& app, CommandContext& ctx) {
  auto options = std::make_shared<CalibrateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate", "fit a GPU's compute model to measured kernel times, or its collectives to nccl-tests tables; write a calibrated hardware file");
  cmd->add_option("--hardware", options->hardware, "hardware YAML file to start from (--data needs gpu.sm_count)")->required();
  cmd->add_option("--data", options->data, "measured kernel CSV file or folder (models/compute/CALIBRATION.md format; repeatable)");
  cmd->add_option("--nccl-tests", options->nccl_tests,
                  "measured nccl-tests output (all_reduce_perf ... stdout, or CSV with size(B) and time(ns|us); "
                  "repeatable): fit nccl.latency_scale, communication_overhead_us, the link efficiency and, from all-reduce "
                  "tables at several GPU counts, nccl.local_pass_gbps");
  cmd->add_option("--topology", options->topology, "with --nccl-tests: the topology the tables ran on (default: one switch)");
  cmd->add_option("--gpus", options->gpus, "with --nccl-tests: GPU count of tables that do not say (CSV without <N>gpu)");
  cmd->add_option("--op", options->op, "with --nccl-tests: operation of tables that do not say (default all_reduce)");
  cmd->add_option("--gpus-per-thread", options->gpus_per_thread,
                  "with --nccl-tests: GPUs one host thread drove (nccl-tests -g) in tables that do not say: N, or all "
                  "(all_reduce_perf -g 8 on one server); the host's launch time per GPU is then fitted too");
  cmd->add_option("-o,--output", options->output, "write the calibrated hardware YAML here");
  cmd->add_option("--holdout", options->holdout, "fraction of GEMM rows held out to report the fit's error on unseen shapes")
      ->check(CLI::Range(0.0, 0.9));
  cmd->add_option("--seed", options->seed, "seed of the held-out split");
  cmd->add_option("--attention-kernel", options->attention_kernel,
                  "the flash kernel the --data attention tables timed (written as gpu.calibration_attention; "
                  "default: the hardware file's)")
      ->check(CLI::IsMember(measured_attention_names()));
  cmd->add_option("--fix", options->fixed,
                  "keep this parameter from the hardware file (e.g. efficiency.gemm, gemm.fixed_us; repeatable)");
  cmd->callback([options, &ctx] { run_calibrate(*options, ctx); });
}

}  // namespace pf::cli
