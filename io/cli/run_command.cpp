// `preflight run`: one training iteration simulated end to end
// (io/cli/README.md): the report on rank 0 as text (stdout) and JSON (OUT/report.json and
// --report-json), the timeline OUT/timeline.h5 from every rank. Exit 3 when
// the plan does not fit in GPU memory (the report is still written).
#include <cstdio>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/communicator.h"
#include "core/error.h"
#include "io/cli/output_files.h"
#include "io/cli/command.h"
#include "io/cli/profile_output.h"
#include "io/cli/progress_line.h"
#include "io/config/experiment_loader.h"
#include "io/report/fault_report.h"
#include "io/report/report_json.h"
#include "io/report/report_text.h"
#include "io/report/sha256.h"
#include "io/report/timeline_export.h"
#include "io/report/uncertainty_report.h"
#include "io/sweep/sweep_runner.h"
#include "io/sweep/uncertainty_run.h"
#include "io/simai/experiment_workload.h"
#include "io/timeline/gpu_selection.h"
#include "io/timeline/timeline_writer.h"
#include "io/run/training_run.h"
#include "models/workload/rank_layout.h"
#include "models/network/faults.h"
#include "models/network/topology.h"
#include "models/network/lp_partition.h"

namespace pf::cli {
namespace {

struct RunCommandOptions {
  std::string experiment;
  std::vector<std::string> overrides;
  std::string out_dir;
  std::string report_json;
  bool no_timeline = false;
  bool baseline = false;
  bool quiet = false;
  double progress_every_s = 0;
  std::string profile_path;
  std::vector<int> profile_ranks{2, 4, 8, 64, 512, 4096};
  double sync_latency_us = 0;
  double event_ns = 0;
  int uncertainty = -1;          // -1: simulation.uncertainty_samples of the experiment
  std::int64_t uncertainty_seed = -1;
  int jobs_per_run = 0;
};

timeline::GpuSelection timeline_selection(const models::ExperimentSpec& e, const models::ParallelismSpec& par) {
  return timeline::select_timeline_gpus(e.output.timeline_gpus, static_cast<std::uint32_t>(e.gpu_count()),
                                        models::training::first_replica_gpus(par));
}


// The same experiment without its faults, for the report's fault_baseline
// (the workload's programs do not depend on faults, so they are shared).
models::training::RunResult run_baseline(const models::ExperimentSpec& e, const models::training::TrainingWorkload& work,
                                         const core::Communicator& world, ProgressStyle style, const CommandContext& ctx,
                                         const RunCommandOptions& o) {
  models::ExperimentSpec healthy = e;
  healthy.faults.clear();
  run::RunOptions options;
  ProgressLine progress(style, core::SimTime::infinity(), ctx.ranks, o.progress_every_s);
  if (progress.enabled()) options.progress = progress.callback_with_fraction();
  if (ctx.is_root() && !o.quiet) std::fprintf(stderr, "preflight: --baseline: simulating without faults\n");
  models::training::RunResult r = run::run_training(healthy, work, world, options);
  progress.finish();
  return r;
}

// --uncertainty N: the experiment again under N sampled parameter sets and
// each prior's two ends (io/sweep/uncertainty_run.h).
models::uncertainty::Band run_band(const models::ExperimentSpec& e, const core::Communicator& world,
                                   const CommandContext& ctx, const RunCommandOptions& o) {
  sweep::UncertaintyOptions u;
  u.samples = e.simulation.uncertainty_samples;
  u.seed = e.simulation.uncertainty_seed;
  // Analytical runs are small once replicas fold: one rank each, the ranks
  // sharing the samples, beats every rank on each (32 samples of
  // gpt3-175b-a100-1024 on 2 ranks: 32.5 against 73 s). Packet runs keep all ranks.
  u.jobs_per_run = o.jobs_per_run > 0 || e.simulation.network != models::NetworkMode::analytical ? o.jobs_per_run : 1;
  u.version = PREFLIGHT_VERSION;
  const bool talk = ctx.is_root() && !o.quiet;
  if (talk) {
    std::fprintf(stderr, "preflight: --uncertainty: %d sampled runs and 2 per parameter, seed %llu\n", u.samples,
                 static_cast<unsigned long long>(u.seed));
    u.on_progress = [](int done, int total) { std::fprintf(stderr, "preflight: uncertainty run %d of %d\n", done, total); };
  }
  // The samples re-run the experiment without its own sampling, outputs or timeline.
  std::vector<std::string> sets = o.overrides;
  sets.push_back("simulation.uncertainty_samples=0");
  return sweep::run_uncertainty(o.experiment, sets, e, world, u);
}

void run_run(const RunCommandOptions& o, CommandContext& ctx) {
  std::vector<std::string> overrides = o.overrides;
  if (o.uncertainty >= 0) overrides.push_back("simulation.uncertainty_samples=" + std::to_string(o.uncertainty));
  if (o.uncertainty_seed >= 0) overrides.push_back("simulation.uncertainty_seed=" + std::to_string(o.uncertainty_seed));
  const config::ConfigNode tree = config::load_experiment_tree(o.experiment, overrides);
  models::ExperimentSpec e = config::parse_experiment(tree);
  if (o.jobs_per_run > 0) sweep::group_count(ctx.ranks, o.jobs_per_run);  // a non-divisor: exit 2 before simulating
  if (!o.out_dir.empty()) e.output.dir = o.out_dir;
  if (o.baseline && e.faults.empty())
    throw ConfigError("--baseline: expected an experiment with a faults: section, found none (nothing to compare)");
  const bool timeline_on = e.output.timeline && !o.no_timeline;
  const std::string yaml = config::merged_yaml(tree);
  const core::Communicator world = core::Communicator::world();

  // Every output is known before the simulation: find an unwritable one now,
  // not after a long run.
  const std::string report_path = (std::filesystem::path(e.output.dir) / "report.json").string();
  // --report-json naming OUT/report.json itself is that one file, written once.
  const std::string extra_report = same_output_path(o.report_json, report_path) ? "" : o.report_json;
  std::vector<OutputFile> outputs{{report_path, "output.dir"}, {extra_report, "--report-json"}};
  if (timeline_on) outputs.push_back({(std::filesystem::path(e.output.dir) / "timeline.h5").string(), "output.dir"});
  outputs.push_back({o.profile_path, "--profile-parallelism"});
  run_on_root_agreed(world, [&] { probe_output_files(outputs); });

  const models::training::TrainingWorkload work = io::experiment_workload(e);
  const timeline::GpuSelection selection = timeline_selection(e, work.parallelism);
  run::RunOptions options;
  if (timeline_on) {
    options.record.assign(static_cast<std::size_t>(e.gpu_count()), false);
    for (std::uint32_t g : selection.gpus()) options.record[g] = true;
  }
  const ProgressStyle style = progress_style(ctx.is_root(), o.quiet, o.progress_every_s);
  ProgressLine progress(style, core::SimTime::infinity(), ctx.ranks, o.progress_every_s);
  if (progress.enabled()) options.progress = progress.callback_with_fraction();
  run::ParallelismProfile profile;
  if (!o.profile_path.empty()) {
    options.profile = &profile;
    options.profile_ranks = o.profile_ranks;
    profile.measured_event_s = o.event_ns * 1e-9;
  }

  models::training::RunResult result = run::run_training(e, work, world, options);
  progress.finish();
  if (!o.profile_path.empty()) {
    const run::SyncCostModel sync{o.sync_latency_us};
    run_on_root_agreed(world, [&] {
      write_profile_file(o.profile_path, profile, sync, PREFLIGHT_VERSION);
      if (!o.quiet) std::fprintf(stderr, "%spreflight: wrote %s\n", run::profile_text(profile, sync).c_str(),
                                 o.profile_path.c_str());
    });
  }

  nlohmann::ordered_json report = report::report_json(result, e, PREFLIGHT_VERSION, report::sha256_hex(yaml));
  if (o.baseline) report::add_fault_baseline(report, run_baseline(e, work, world, style, ctx, o));
  if (e.simulation.uncertainty_samples > 0) report::add_uncertainty_band(report, run_band(e, world, ctx, o));
  ctx.exit_code = result.memory.fits() ? 0 : 3;
  // The report files appear with the timeline or not at all: a failed
  // timeline write leaves an earlier run's outputs as they were.
  std::vector<StagedFile> reports;
  run_on_root_agreed(world, [&] {
    // The text report steps aside to stderr when the JSON goes to stdout (`--report-json - | jq`).
    std::FILE* text = text_stream({extra_report});
    std::fputs(report::report_text(report, result.figures).c_str(), text);
    std::fflush(text);
    reports.emplace_back(report_path, report.dump(2) + "\n", "output.dir");
    if (!extra_report.empty()) reports.emplace_back(extra_report, report.dump(2) + "\n", "--report-json");
  });
  const auto publish_reports = [&] {
    run_on_root_agreed(world, [&] {
      for (StagedFile& f : reports) f.commit();
    });
  };
  if (!timeline_on) {
    publish_reports();
    return;
  }

  const models::workload::RankLayout layout(work.parallelism);
  const models::network::ClusterGraph graph = models::network::build_experiment_cluster(e);
  partition::RankMapping mapping;  // the run's own (replica folding weighs its GPUs)
  mapping.ranks = world.size();
  mapping.strategy = e.simulation.partition;
  mapping.vertex_rank = result.vertex_rank;
  timeline::TimelineContent content = report::timeline_content(report, e, layout, graph, mapping, selection);
  content.config_yaml = yaml;
  timeline::TimelineRows rows = report::timeline_rows(std::move(result.local), layout, graph,
                                                      core::SimTime::from_seconds(result.step_time_s), &e);
  const timeline::TimelineWriteStats stats = timeline::write_timeline(world, e.output.dir, content, rows);
  publish_reports();
  if (ctx.is_root() && !o.quiet)
    std::fprintf(stderr, "preflight: wrote %s (%llu events, %.1f MB, %.2f s)\n", stats.path.c_str(),
                 static_cast<unsigned long long>(stats.rows), static_cast<double>(stats.file_bytes) / 1e6,
                 stats.wall_s);
}

}  // namespace

void add_run_command(CLI::App& app, CommandContext& ctx) {
  auto options = std::make_shared<RunCommandOptions>();
  CLI::App* cmd = app.add_subcommand("run", "simulate one training iteration: report and per-GPU timeline");
  cmd->add_option("experiment", options->experiment, "experiment YAML file")->required();
  cmd->add_option("--set", options->overrides, "override a configuration key: --set parallelism.tp=4 (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option("--out", options->out_dir, "output directory (default: output.dir of the experiment)");
  cmd->add_option("--report-json", options->report_json,
                  "also write the JSON report to this file (- for standard output; the text report then goes to "
                  "stderr)");
  cmd->add_flag("--no-timeline", options->no_timeline, "do not write timeline.h5");
  cmd->add_flag("--baseline", options->baseline,
               "also simulate the experiment without its faults: the report says what the faults add");
  cmd->add_flag("--quiet", options->quiet, "no progress line on stderr");
  cmd->add_option("--progress-every", options->progress_every_s,
                  "when stderr is not a terminal (a batch log): a progress line every SECONDS")
      ->check(CLI::Range(0.001, 86400.0));
  cmd->add_option("--profile-parallelism", options->profile_path,
                  "write how parallel the run is to this HDF5 file: every window per rank, or on one rank the "
                  "projected speed-up on --profile-ranks ranks");
  cmd->add_option("--profile-ranks", options->profile_ranks,
                  "rank counts to project from a one-rank --profile-parallelism run (default 2,4,8,64,512,4096)")
      ->delimiter(',')
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--sync-latency-us", options->sync_latency_us,
                  "the projection's MPI small-message latency, microseconds (default: the osu_latency "
                  "InfiniBand table's 1.18)")
      ->check(CLI::Range(0.001, 1e6));
  cmd->add_option("--profile-event-ns", options->event_ns,
                  "the projection's cost per event, nanoseconds, as a plain run measured it (simulation.wall_s / "
                  "events; default: estimated from this run)")
      ->check(CLI::Range(0.001, 1e9));
  cmd->add_option("--uncertainty", options->uncertainty,
                  "also re-simulate under N Latin-hypercube samples of the cost-model priors: P10/P50/P90 and a "
                  "sensitivity ranking in the report (simulation.uncertainty_samples; 0 = off)")
      ->check(CLI::Range(0, 100000));
  cmd->add_option("--uncertainty-seed", options->uncertainty_seed,
                  "seed of the samples (simulation.uncertainty_seed, default 1)")
      ->check(CLI::Range(static_cast<std::int64_t>(0), std::numeric_limits<std::int64_t>::max()));
  cmd->add_option("--jobs-per-run", options->jobs_per_run,
                  "with --uncertainty: MPI ranks per sampled run (a divisor of the ranks; default 1 with the analytical "
                  "network, all ranks in packet mode)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->callback([options, &ctx] { run_run(*options, ctx); });
}

}  // namespace pf::cli
