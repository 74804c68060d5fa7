// `preflight sweep`: one experiment over a grid of variants (io/cli/README.md),
// all inside one MPI job, and a table of the variants ranked by step time on
// rank 0 (stdout; --csv, --json). The figures are those `preflight run`
// reports for the same overrides (io/sweep/sweep_runner.h). Exit 0 even when
// some variants do not fit in memory (OOM is a column), 2 on bad usage or
// when no variant is valid, 1 when a simulation failed.
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
#include "io/sweep/ranking.h"
#include "io/sweep/sweep_output.h"
#include "io/sweep/sweep_runner.h"
#include "io/sweep/vary_axis.h"

namespace pf::cli {
namespace {

struct SweepOptions {
  std::string experiment;
  std::vector<std::string> vary;
  std::vector<std::string> overrides;
  int jobs_per_run = 0;  // 0: not given, all ranks run each variant
  bool jobs_given = false;
  std::string csv_path;
  std::string json_path;
  bool quiet = false;
  int uncertainty = 0;              // --uncertainty N: every variant under the same N samples
  std::int64_t uncertainty_seed = 1;
};

// Output paths are checked before hours of simulation, not after.
void check_writable(const std::string& path, const char* option) {
  if (path.empty()) return;
  const std::filesystem::path p(path);
  if (std::filesystem::is_directory(p)) throw ConfigError(std::string(option) + ": " + path + " is a directory");
}

std::string first_name(const std::vector<sweep::PreparedVariant>& variants) {
  for (const auto& v : variants)
    if (v.experiment) return v.experiment->name;
  return {};
}

void run_sweep_command(const SweepOptions& o, CommandContext& ctx) {
  std::vector<sweep::VaryAxis> axes;
  for (const std::string& text : o.vary) axes.push_back(sweep::parse_vary(text));
  const std::vector<sweep::Variant> grid = sweep::expand_grid(axes);
  if (o.jobs_given && o.jobs_per_run < 1)
    throw ConfigError("--jobs-per-run " + std::to_string(o.jobs_per_run) +
                      ": expected a positive number of MPI ranks per variant");
  const int groups = sweep::group_count(ctx.ranks, o.jobs_per_run);
  check_writable(o.csv_path, "--csv");
  check_writable(o.json_path, "--json");

  run_on_root_agreed(core::Communicator::world(),
                     [&] { probe_output_files({{o.csv_path, "--csv"}, {o.json_path, "--json"}}); });
  // Every rank checks every variant, so all agree on which ones run.
  const std::vector<sweep::PreparedVariant> prepared = sweep::prepare_variants(o.experiment, o.overrides, grid);
  const std::vector<std::string> shortened = sweep::short_keys(axes);
  bool any_valid = false;
  for (const auto& p : prepared) {
    any_valid = any_valid || p.experiment.has_value();
    if (!p.experiment && ctx.is_root() && !o.quiet)
      std::fprintf(stderr, "%s\n",
                   sweep::progress_line(sweep::invalid_row(p.variant, p.error), grid.size(), shortened).c_str());
  }
  if (!any_valid)
    throw ConfigError("sweep: no variant is valid; the first (" + sweep::variant_label(grid.front(), shortened) +
                      "): " + prepared.front().error);

  sweep::SweepRunOptions options;
  options.jobs_per_run = ctx.ranks / groups;
  options.version = PREFLIGHT_VERSION;
  if (!o.quiet)
    options.on_finished = [&](const sweep::SweepRow& row) {
      std::fprintf(stderr, "%s\n", sweep::progress_line(row, grid.size(), shortened).c_str());
      std::fflush(stderr);
    };
  sweep::SweepRunResult run = sweep::run_sweep(prepared, core::Communicator::world(), options);
  sweep::apply_change(run.rows);

  sweep::SweepTable table;
  if (o.uncertainty > 0) {
    if (ctx.is_root() && !o.quiet)
      std::fprintf(stderr, "sweep: --uncertainty: every valid variant under the same %d samples, seed %lld\n",
                   o.uncertainty, static_cast<long long>(o.uncertainty_seed));
    sweep::SweepRunOptions u = options;
    int done = 0;
    if (!o.quiet) u.on_finished = [&](const sweep::SweepRow&) { std::fprintf(stderr, "sweep: uncertainty run %d\n", ++done); };
    std::vector<std::string> sets = o.overrides;
    sets.push_back("simulation.uncertainty_samples=0");
    table.bands = sweep::run_sweep_bands(o.experiment, sets, prepared, core::Communicator::world(), o.uncertainty,
                                         static_cast<std::uint64_t>(o.uncertainty_seed), u);
  }
  table.experiment = o.experiment;
  table.name = first_name(prepared);
  table.axes = axes;
  table.baseline = sweep::baseline_index(run.rows);
  table.rows = sweep::rank_rows(std::move(run.rows));
  table.ranks = ctx.ranks;
  table.jobs_per_run = options.jobs_per_run;
  ctx.exit_code = run.simulation_failed ? 1 : 0;
  if (!ctx.is_root()) return;
  std::FILE* text = text_stream({o.csv_path, o.json_path});  // stderr when --csv - or --json -
  std::fputs(sweep::format_table(table).c_str(), text);
  std::fflush(text);
  if (!o.csv_path.empty()) write_file_atomically(o.csv_path, sweep::format_csv(table), "--csv");
  if (!o.json_path.empty()) write_file_atomically(o.json_path, sweep::sweep_json(table).dump(2) + "\n", "--json");
}

}  // namespace

void add_sweep_command(CLI::App& app, CommandContext& ctx) {
  auto options = std::make_shared<SweepOptions>();
  CLI::App* cmd = app.add_subcommand("sweep", "simulate a grid of variants of an experiment; ranked table");
  cmd->add_option("experiment", options->experiment, "experiment YAML file")->required();
  cmd->add_option("--vary", options->vary,
                  "a key and its values: --vary parallelism.tp=2,4,8 (repeatable; the grid is the product, "
                  "the first --vary varies slowest)")
      ->required()
      ->allow_extra_args(false);
  cmd->add_option("--set", options->overrides, "override a configuration key for every variant (repeatable)")
      ->allow_extra_args(false);
  CLI::Option* jobs = cmd->add_option(
      "--jobs-per-run", options->jobs_per_run,
      "MPI ranks per variant; must divide the ranks (default: all ranks, variants one after another)");
  cmd->add_option("--csv", options->csv_path, "also write the table as CSV");
  cmd->add_option("--json", options->json_path, "also write the table as JSON (scripts/plot_sweep.py draws it)");
  cmd->add_flag("--quiet", options->quiet, "no per-variant progress lines on stderr");
  cmd->add_option("--uncertainty", options->uncertainty,
                  "also run every valid variant under the same N samples of the cost-model priors: P10/P50/P90 per "
                  "variant and how often each beats the next in the ranking (models/uncertainty/README.md)")
      ->check(CLI::Range(0, 100000));
  cmd->add_option("--uncertainty-seed", options->uncertainty_seed, "seed of the samples (default 1)")
      ->check(CLI::Range(static_cast<std::int64_t>(0), std::numeric_limits<std::int64_t>::max()));
  cmd->callback([options, jobs, &ctx] {
    options->jobs_given = jobs->count() > 0;
    run_sweep_command(*options, ctx);
  });
}

}  // namespace pf::cli
