// `preflight phold`: the engine benchmark of models/phold/README.md.
#include <sys/resource.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/communicator.h"
#include "core/engine.h"
#include "io/cli/command.h"
#include "io/cli/output_files.h"
#include "io/cli/progress_line.h"
#include "models/phold/phold_model.h"

namespace pf::cli {
namespace {

struct PholdOptions {
  std::uint32_t lps = 2048;
  std::uint32_t start_events = 4;
  double remote = 0.25;
  double lookahead_us = 0.1;
  double mean_us = 1.0;
  double end_us = 2000.0;
  std::uint64_t seed = 1;
  std::string sync = "window";
  std::string json_path;
  bool quiet = false;
  double progress_every_s = 0;
};

double peak_rss_mb() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports KiB
}

void check(const PholdOptions& o) {
  if (o.lookahead_us <= 0 || !std::isfinite(o.lookahead_us))
    throw ConfigError("--lookahead: expected a time > 0 (zero lookahead cannot be synchronised), found " +
                      std::to_string(o.lookahead_us));
  if (!(o.mean_us > o.lookahead_us) || !std::isfinite(o.mean_us))
    throw ConfigError("--mean: expected a time greater than --lookahead (" + std::to_string(o.lookahead_us) +
                      "), found " + std::to_string(o.mean_us));
  if (!(o.end_us > 0))
    throw ConfigError("--end: expected a time > 0 us, found " + std::to_string(o.end_us));
  if (o.end_us > 1e8)
    throw ConfigError("--end: expected at most 1e8 us (100 s of simulated time), found " + std::to_string(o.end_us));
  if (core::SimTime::from_us(o.lookahead_us) <= core::SimTime::zero())
    throw ConfigError("--lookahead: below the 1 ps time resolution");
}

void run_phold(const PholdOptions& o, CommandContext& ctx) {
  check(o);
  models::PholdParams params;
  params.lps = o.lps;
  params.start_events = o.start_events;
  params.remote = o.remote;
  params.lookahead = core::SimTime::from_us(o.lookahead_us);
  params.mean = core::SimTime::from_us(o.mean_us);
  params.end = core::SimTime::from_us(o.end_us);
  params.seed = o.seed;

  core::Communicator world = core::Communicator::world();
  run_on_root_agreed(world, [&] { probe_output_files({{o.json_path, "--json"}}); });
  core::EngineConfig config;
  config.lookahead = params.lookahead;
  config.end = params.end;
  config.sync = o.sync == "window" ? core::Sync::window : core::Sync::null_message;
  const ProgressStyle style = progress_style(ctx.is_root(), o.quiet, o.progress_every_s);
  ProgressLine progress(style, params.end, world.size(), o.progress_every_s);
  config.progress = progress.callback();
  core::Engine engine(world, models::phold_block_mapping(params.lps, world.size()), config);
  models::PholdModel model(params);
  model.initialise(engine);
  engine.run(model);

  progress.finish();  // end the progress line before the figures
  const core::EngineStats stats = engine.global_stats();
  const std::uint64_t checksum = engine.global_digest();
  const double peak_mb = world.max(peak_rss_mb());
  if (!ctx.is_root()) return;

  char checksum_hex[19];
  std::snprintf(checksum_hex, sizeof checksum_hex, "0x%016llx", static_cast<unsigned long long>(checksum));
  const double events_per_s = stats.wall_s > 0 ? static_cast<double>(stats.committed_events) / stats.wall_s : 0;
  const double bytes_per_pending =
      stats.peak_pending ? static_cast<double>(stats.queue_bytes) / static_cast<double>(stats.peak_pending) : 0;
  nlohmann::ordered_json j;
  j["events"] = stats.committed_events;
  j["wall_s"] = stats.wall_s;
  j["events_per_s"] = events_per_s;
  j["ranks"] = world.size();
  j["sync"] = world.size() == 1 ? "sequential" : o.sync;
  j["windows"] = stats.windows;
  j["null_messages"] = stats.null_messages;
  j["remote_fraction"] = o.remote;
  j["checksum"] = checksum_hex;
  j["remote_events"] = stats.remote_events;
  j["mpi_messages"] = stats.messages;
  j["lookahead_us"] = o.lookahead_us;
  j["peak_pending_events"] = stats.peak_pending;
  j["queue_bytes_per_pending_event"] = bytes_per_pending;
  j["peak_memory_mb_per_rank"] = peak_mb;

  std::FILE* out = text_stream({o.json_path});  // stderr when --json -
  for (const auto& [key, value] : j.items()) {
    if (value.is_string())
      std::fprintf(out, "%s: %s\n", key.c_str(), value.get<std::string>().c_str());
    else
      std::fprintf(out, "%s: %s\n", key.c_str(), value.dump().c_str());
  }
  std::fflush(out);
  if (!o.json_path.empty()) {
    write_file_atomically(o.json_path, j.dump(2) + "\n", "--json");
  }
}

}  // namespace

void add_phold_command(CLI::App& app, CommandContext& ctx) {
  auto options = std::make_shared<PholdOptions>();
  CLI::App* cmd = app.add_subcommand("phold", "PHOLD engine benchmark (ROSS semantics; models/phold/README.md)");
  cmd->add_option("--lps", options->lps, "number of LPs")->check(CLI::Range(1u, 1u << 24))->capture_default_str();
  cmd->add_option("--start-events", options->start_events, "initial events per LP")
      ->check(CLI::Range(1u, 1000000u))->capture_default_str();
  cmd->add_option("--remote", options->remote, "probability an event goes to a uniformly drawn LP")
      ->check(CLI::Range(0.0, 1.0))->capture_default_str();
  cmd->add_option("--lookahead", options->lookahead_us, "minimum delay, us (1.0 = 1 us)")->capture_default_str();
  cmd->add_option("--mean", options->mean_us, "mean delay, us (> lookahead)")->capture_default_str();
  cmd->add_option("--end", options->end_us, "end of simulated time, us")->capture_default_str();
  cmd->add_option("--seed", options->seed, "random seed")->capture_default_str();
  cmd->add_option("--sync", options->sync, "synchronisation on >1 rank")
      ->check(CLI::IsMember({"window", "null_message"}))->capture_default_str();
  cmd->add_option("--json", options->json_path, "also write the figures as JSON");
  cmd->add_flag("--quiet", options->quiet, "no progress line on stderr");
  cmd->add_option("--progress-every", options->progress_every_s,
                  "when stderr is not a terminal (a batch log): a progress line every SECONDS")
      ->check(CLI::Range(0.001, 86400.0));
  cmd->callback([options, &ctx] { run_phold(*options, ctx); });
}

}  // namespace pf::cli
