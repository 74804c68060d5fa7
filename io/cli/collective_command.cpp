// `preflight collective`: nccl-tests' table for one collective over the
// first N GPUs of a cluster, one row per size doubling (io/cli/README.md).
//
// Each size is one simulation from time zero on idle links; the time is when
// the last GPU finished, plus the hardware file's fixed per-collective
// `communication_overhead_us` (launch and synchronisation, which nccl-tests
// measures too; set it to 0 for pure network physics). nccl-tests times
// back-to-back calls from host threads that each launch their GPUs' kernels
// one after another (its -g: GPUs per thread), so a call also takes at least
// --gpus-per-thread x --launch-us: the host's side of a call, which a run of
// `all_reduce_perf -g 8` on one server shows as a floor of 8 launches.
// Bandwidths follow nccl-tests: algbw = bytes / time, busbw = algbw * bus_factor(op, n). The
// data rows have nccl-tests' columns (size, count, type, redop, root, then
// time, algbw, busbw, #wrong out of place and in place), so a predicted table
// and a measured all_reduce_perf log can be compared line by line; what
// preflight chose (algorithm, protocol, channels) follows as comment lines.
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/communicator.h"
#include "core/error.h"
#include "io/cli/collective_fit.h"
#include "io/cli/command.h"
#include "io/cli/nccl_tests_log.h"
#include "io/cli/output_files.h"
#include "io/cli/progress_line.h"
#include "io/config/cluster_loader.h"
#include "models/collective/algorithm_choice.h"
#include "io/run/collective_bench.h"
#include "models/network/network_config.h"
#include "partition/partition_report.h"

namespace pf::cli {
namespace {

using models::collective::Algo;
using run::BenchCase;
using run::BenchResult;
using run::CollectiveBench;
using models::collective::Op;

struct CollectiveOptions {
  std::string op;
  std::string min_bytes = "8M";
  std::string max_bytes = "8G";
  int gpus = 0;  // 0 = every GPU of the topology
  std::string experiment;
  std::string hardware;
  std::string topology;
  std::string algo = "auto";
  std::string proto = "auto";
  std::string dtype = "float";
  std::string json_path;
  std::vector<std::string> overrides;
  int channels = 0;
  std::string nvlink = "coarse";
  bool quiet = false;
  double progress_every_s = 0;
  std::string gpus_per_thread_text = "1";  // --gpus-per-thread: N, or all
  int gpus_per_thread = 1;                  // nccl-tests -g, resolved against the call's GPUs
  double launch_us = 0;     // host time to launch one GPU's part of a call
};

// "8M" -> 8 * 2^20. K, M, G, T are powers of two (as nccl-tests reads -b/-e);
// an optional trailing B or iB is allowed.
std::uint64_t parse_size(const std::string& option, const std::string& text) {
  const auto fail = [&] {
    return ConfigError(option + ": expected a byte count such as 8M (K, M, G, T = 2^10, 2^20, 2^30, 2^40), found '" +
                       text + "'");
  };
  std::size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0 || i > 15) throw fail();
  std::uint64_t value = std::stoull(text.substr(0, i));
  std::string unit = text.substr(i);
  for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.size() >= 2 && unit.substr(unit.size() - 2) == "IB") unit.resize(unit.size() - 2);
  else if (unit.size() >= 2 && unit.back() == 'B') unit.pop_back();
  int shift = 0;
  if (unit == "K") shift = 10;
  else if (unit == "M") shift = 20;
  else if (unit == "G") shift = 30;
  else if (unit == "T") shift = 40;
  else if (!unit.empty() && unit != "B") throw fail();
  if (value == 0) throw ConfigError(option + ": expected at least 1 byte, found '" + text + "'");
  if (shift > 0 && value > (std::uint64_t{1} << (62 - shift))) throw fail();
  return value << shift;
}

config::ClusterSpec load(const CollectiveOptions& o) {
  if (!o.experiment.empty()) {
    if (!o.hardware.empty() || !o.topology.empty())
      throw ConfigError("--experiment: expected either --experiment or --hardware with --topology, found both");
    return config::load_cluster_from_experiment(o.experiment, o.overrides);
  }
  if (o.hardware.empty() || o.topology.empty())
    throw ConfigError(std::string(o.hardware.empty() ? "--hardware" : "--topology") +
                      ": expected --experiment FILE, or --hardware FILE with --topology FILE");
  return config::load_cluster(o.hardware, o.topology, o.overrides);
}

struct Row {
  std::uint64_t bytes;
  BenchResult result;
  double time_us;
};

double gbps(std::uint64_t bytes, double time_us) { return time_us > 0 ? static_cast<double>(bytes) / (time_us * 1e3) : 0; }

// nccl-tests' -d names and sizes.
int dtype_bytes(const std::string& type) {
  if (type == "int8" || type == "uint8" || type == "char") return 1;
  if (type == "half" || type == "bfloat16" || type == "float16") return 2;
  if (type == "int32" || type == "uint32" || type == "float" || type == "int" || type == "float32") return 4;
  if (type == "int64" || type == "uint64" || type == "double" || type == "float64") return 8;
  return 0;
}

bool reduces(Op op) { return op == Op::all_reduce || op == Op::reduce_scatter; }

// nccl-tests' element count: the per-rank input for all-gather, the per-rank
// output for reduce-scatter, the buffer otherwise (its `count` column).
std::uint64_t element_count(Op op, std::uint64_t bytes, int gpus, int type_bytes) {
  const std::uint64_t n = static_cast<std::uint64_t>(gpus);
  const std::uint64_t elements = bytes / static_cast<std::uint64_t>(type_bytes);
  return op == Op::all_gather || op == Op::reduce_scatter || op == Op::all_to_all ? elements / n : elements;
}

void print_table(std::FILE* out, const CollectiveOptions& o, const config::ClusterSpec& spec, Op op, int gpus,
                 double overhead_us, const std::vector<Row>& rows, int ranks) {
  const auto& sim = spec.simulation;
  std::fprintf(out, "# preflight collective: %s on %d GPUs (%d per server), %s network, chunk %lld B, nvlink %s\n",
              models::collective::to_string(op), gpus, spec.hardware.node.gpus_per_node,
              models::network::to_string(sim.network), static_cast<long long>(sim.chunk_bytes), o.nvlink.c_str());
  std::fprintf(out, "# %d MPI rank(s), partition %s, sync %s; collective model %s; communication_overhead_us %g added to every time\n",
              ranks, partition::to_string(sim.partition), sim.sync == models::SyncMode::window ? "window" : "null_message",
              sim.collective_model == models::CollectiveModel::nccl ? "nccl (NCCL 2.30.7 tuning constants)" : "links",
              overhead_us);
  if (o.launch_us > 0)
    std::fprintf(out, "# host: %d GPU(s) per thread (nccl-tests -g), %g us to launch each: every time at least %g us\n",
                o.gpus_per_thread, o.launch_us, o.gpus_per_thread * o.launch_us);
  std::fprintf(out, "#\n#%74s%35s\n", "out-of-place", "in-place");
  std::fprintf(out, "#%11s %13s %9s %7s %7s %8s %7s %7s %6s %8s %7s %7s %6s\n", "size", "count", "type", "redop", "root",
              "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong");
  std::fprintf(out, "#%11s %13s %9s %7s %7s %8s %7s %7s %6s %8s %7s %7s %6s\n", "(B)", "(elements)", "", "", "", "(us)",
              "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "");
  const double factor = models::collective::bus_factor(op, gpus);
  const int type_bytes = dtype_bytes(o.dtype);
  const char* redop = reduces(op) ? "sum" : "none";
  const int root = op == Op::broadcast ? 0 : -1;
  for (const Row& r : rows) {
    const double alg = gbps(r.bytes, r.time_us);
    // Out of place and in place run the same simulation; #wrong is N/A as
    // in nccl-tests without data checks (-c 0).
    std::fprintf(out, "%12llu %13llu %9s %7s %7d %8.2f %7.2f %7.2f %6s %8.2f %7.2f %7.2f %6s\n",
                static_cast<unsigned long long>(r.bytes),
                static_cast<unsigned long long>(element_count(op, r.bytes, gpus, type_bytes)), o.dtype.c_str(), redop,
                root, r.time_us, alg, alg * factor, "N/A", r.time_us, alg, alg * factor, "N/A");
  }
  std::fprintf(out, "# Avg bus bandwidth    : %g\n", [&] {
    double sum = 0;
    for (const Row& r : rows) sum += gbps(r.bytes, r.time_us) * factor;
    return rows.empty() ? 0.0 : sum / static_cast<double>(rows.size());
  }());
  std::fprintf(out, "#\n# preflight's choices:\n#%11s %-13s %-7s %4s %12s\n", "size", "algo", "proto", "ch", "events");
  for (const Row& r : rows) {
    std::fprintf(out, "#%11llu %-13s %-7s %4d %12llu\n", static_cast<unsigned long long>(r.bytes),
                models::collective::to_string(r.result.algo), models::collective::to_string(r.result.proto),
                r.result.channels, static_cast<unsigned long long>(r.result.stats.committed_events));
  }
  std::fflush(out);
}

void write_json(const CollectiveOptions& o, const config::ClusterSpec& spec, const CollectiveBench& bench, Op op,
                int gpus, double overhead_us, const std::vector<Row>& rows, int ranks) {
  const auto& sim = spec.simulation;
  const double factor = models::collective::bus_factor(op, gpus);
  nlohmann::ordered_json j;
  j["op"] = models::collective::to_string(op);
  j["gpus"] = gpus;
  j["rows"] = nlohmann::ordered_json::array();
  std::uint64_t events = 0;
  double wall = 0;
  for (const Row& r : rows) {
    const double alg = gbps(r.bytes, r.time_us);
    nlohmann::ordered_json row;
    row["bytes"] = r.bytes;
    row["time_us"] = r.time_us;
    row["algbw_gbps"] = alg;
    row["busbw_gbps"] = alg * factor;
    row["algo"] = models::collective::to_string(r.result.algo);
    row["proto"] = models::collective::to_string(r.result.proto);
    row["count"] = element_count(op, r.bytes, gpus, dtype_bytes(o.dtype));
    row["channels"] = r.result.channels;
    row["events"] = r.result.stats.committed_events;
    row["wall_s"] = r.result.stats.wall_s;
    row["remote_events"] = r.result.stats.remote_events;
    row["windows"] = r.result.stats.windows;
    row["null_messages"] = r.result.stats.null_messages;
    j["rows"].push_back(row);
    events += r.result.stats.committed_events;
    wall += r.result.stats.wall_s;
  }
  j["algo_requested"] = o.algo;
  j["proto_requested"] = o.proto;
  j["type"] = o.dtype;
  j["collective_model"] = sim.collective_model == models::CollectiveModel::nccl ? "nccl" : "links";
  j["network"] = models::network::to_string(sim.network);
  j["chunk_bytes"] = sim.chunk_bytes;
  j["nvlink"] = o.nvlink;
  j["communication_overhead_us"] = overhead_us;
  j["gpus_per_thread"] = o.gpus_per_thread;
  j["launch_us"] = o.launch_us;
  j["ranks"] = ranks;
  j["partition"] = partition::to_string(sim.partition);
  j["sync"] = sim.sync == models::SyncMode::window ? "window" : "null_message";
  j["lookahead_us"] = bench.mapping().report.lookahead.is_infinite() ? 0.0 : bench.mapping().report.lookahead.us();
  j["partition_cut_links"] = bench.mapping().report.cut_links;
  j["partition_imbalance"] = bench.mapping().report.imbalance;
  j["events"] = events;
  j["wall_s"] = wall;
  j["events_per_s"] = wall > 0 ? static_cast<double>(events) / wall : 0.0;
  write_file_atomically(o.json_path, j.dump(2) + "\n", "--json");
}

// --gpus-per-thread against the call's GPUs: all of them for "all", at most them otherwise.
int gpus_per_thread(const std::string& text, int gpus) {
  const int v = parse_gpus_per_thread(text);
  if (v < 0) return gpus;
  if (v > gpus)
    throw ConfigError("--gpus-per-thread: expected at most the " + std::to_string(gpus) + " GPUs of the call, found " + text);
  return v;
}

void run_collective(const CollectiveOptions& given, CommandContext& ctx) {
  CollectiveOptions o = given;  // --gpus-per-thread resolved below
  const auto op = models::collective::parse_op(o.op);
  if (!op || *op == Op::send || *op == Op::recv)
    throw ConfigError("--op: expected all_reduce, all_gather, reduce_scatter, all_to_all, broadcast or send_recv, found '" +
                      o.op + "'");
  const auto algo = models::collective::parse_algo(o.algo);
  if (!algo) throw ConfigError("--algo: expected " + models::collective::algo_names() + ", found '" + o.algo + "'");
  const auto proto = models::collective::parse_proto(o.proto);
  if (!proto) throw ConfigError("--proto: expected LL, LL128, Simple or auto, found '" + o.proto + "'");
  if (dtype_bytes(o.dtype) == 0)
    throw ConfigError("--dtype: expected one of nccl-tests' types (int8, uint8, half, bfloat16, int32, uint32, float, "
                      "int64, uint64, double), found '" + o.dtype + "'");
  const std::uint64_t min_bytes = parse_size("--min-bytes", o.min_bytes);
  const std::uint64_t max_bytes = parse_size("--max-bytes", o.max_bytes);
  if (max_bytes < min_bytes)
    throw ConfigError("--max-bytes: expected at least --min-bytes (" + std::to_string(min_bytes) + "), found " +
                      std::to_string(max_bytes));
  config::ClusterSpec spec = load(o);
  if (*proto != models::collective::Proto::automatic) {
    if (spec.simulation.collective_model != models::CollectiveModel::nccl)
      throw ConfigError("--proto: needs simulation.collective_model nccl, found links");
    spec.simulation.nccl_proto = *proto == models::collective::Proto::ll      ? models::NcclProtocol::ll
                                 : *proto == models::collective::Proto::ll128 ? models::NcclProtocol::ll128
                                                                              : models::NcclProtocol::simple;
  }

  core::Communicator world = core::Communicator::world();
  run_on_root_agreed(world, [&] { probe_output_files({{o.json_path, "--json"}}); });
  const ProgressStyle style = progress_style(ctx.is_root(), o.quiet, o.progress_every_s);
  ProgressLine progress(style, core::SimTime::infinity(), world.size(), o.progress_every_s);
  run::BenchOptions options;
  options.channels = o.channels;
  options.nccl = spec.hardware.nccl;
  options.faults = spec.faults;
  options.nvlink = o.nvlink == "fine" ? models::network::NvlinkFidelity::fine : models::network::NvlinkFidelity::coarse;
  options.progress = progress.callback();
  const CollectiveBench bench(spec.hardware.node, spec.topology, spec.simulation, world, options);

  BenchCase c;
  c.op = *op;
  c.gpus = o.gpus == 0 ? bench.graph().gpu_count() : o.gpus;
  o.gpus_per_thread = gpus_per_thread(o.gpus_per_thread_text, c.gpus);
  c.bytes = min_bytes;
  c.algo = *algo;
  try {
    bench.resolve(c);  // every rank checks the same case, so a bad one stops all before any run
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    const std::string prefix = "algorithm:";
    if (what.rfind(prefix, 0) == 0) throw ConfigError("--algo:" + what.substr(prefix.size()));
    throw;
  }
  const double overhead_us = spec.hardware.gpu.efficiency.communication_overhead_us;
  std::vector<Row> rows;
  for (std::uint64_t bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
    c.bytes = bytes;
    const BenchResult r = bench.run(c);
    rows.push_back({bytes, r, nccl_tests_time_us(r.time.us() + overhead_us, o.gpus_per_thread, o.launch_us)});
    if (bytes > max_bytes / 2) break;
  }
  progress.finish();
  if (!ctx.is_root()) return;
  std::FILE* text = text_stream({o.json_path});  // stderr when --json -
  print_table(text, o, spec, *op, c.gpus, overhead_us, rows, world.size());
  std::fprintf(text, "# partition: %s\n", partition::summarize(bench.mapping().report).c_str());
  std::fflush(text);
  if (!o.json_path.empty()) write_json(o, spec, bench, *op, c.gpus, overhead_us, rows, world.size());
}

}  // namespace

void add_collective_command(CLI::App& app, CommandContext& ctx) {
  auto o = std::make_shared<CollectiveOptions>();
  CLI::App* cmd = app.add_subcommand("collective", "nccl-tests-style table of one collective over the first N GPUs");
  cmd->add_option("--op", o->op,
                  "all_reduce | all_gather | reduce_scatter | all_to_all | broadcast | send_recv (nccl-tests' "
                  "names too: allreduce, AllReduce, all_reduce_perf)")
      ->required();
  cmd->add_option("--min-bytes", o->min_bytes, "smallest size (K/M/G = 2^10/2^20/2^30)")->capture_default_str();
  cmd->add_option("--max-bytes", o->max_bytes, "largest size; one row per doubling")->capture_default_str();
  cmd->add_option("--gpus", o->gpus, "the first N GPUs of the topology (default: all)");
  cmd->add_option("--experiment", o->experiment, "take hardware, topology and simulation from an experiment");
  cmd->add_option("--hardware", o->hardware, "hardware file (with --topology)");
  cmd->add_option("--topology", o->topology, "topology file (with --hardware)");
  cmd->add_option("--algo", o->algo, models::collective::algo_names())->capture_default_str();
  cmd->add_option("--proto", o->proto, "LL | LL128 | Simple | auto: force NCCL's protocol (as NCCL_PROTO)")
      ->capture_default_str();
  cmd->add_option("--dtype", o->dtype, "element type of the count column (nccl-tests -d): float, half, bfloat16, ...")
      ->capture_default_str();
  cmd->add_option("--json", o->json_path, "also write the table as JSON");
  cmd->add_option("--set", o->overrides, "KEY=VALUE override of the merged configuration (repeatable)");
  cmd->add_option("--channels", o->channels, "rings/trees side by side (default: one per NIC rail)")
      ->check(CLI::Range(0, models::collective::kMaxChannels));
  cmd->add_option("--nvlink", o->nvlink, "NVLink granularity in packet mode: coarse (one piece per message) | fine")
      ->check(CLI::IsMember({"coarse", "fine"}))->capture_default_str();
  cmd->add_option("--gpus-per-thread", o->gpus_per_thread_text,
                  "as nccl-tests -g: GPUs one host thread launches, one after another, for each call (a count, or all)")
      ->capture_default_str();
  cmd->add_option("--launch-us", o->launch_us,
                  "host time to launch one GPU's part of a call, microseconds: every call takes at least "
                  "--gpus-per-thread x this (0 = no host floor)")
      ->check(CLI::Range(0.0, 1e6))->capture_default_str();
  cmd->add_flag("--quiet", o->quiet, "no progress line on stderr");
  cmd->add_option("--progress-every", o->progress_every_s,
                  "when stderr is not a terminal (a batch log): a progress line every SECONDS")
      ->check(CLI::Range(0.001, 86400.0));
  cmd->callback([o, &ctx] { run_collective(*o, ctx); });
}

}  // namespace pf::cli
