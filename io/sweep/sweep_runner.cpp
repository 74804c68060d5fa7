#include "io/sweep/sweep_runner.h"

#include <algorithm>
#include <chrono>

#include "core/error.h"
#include "io/config/experiment_loader.h"
#include "io/report/report_json.h"
#include "io/report/sha256.h"
#include "io/simai/experiment_workload.h"
#include "io/run/training_run.h"

namespace pf::sweep {

namespace {

// The loader names every override "--set KEY=VALUE"; the variant's own come from --vary.
std::string name_vary(std::string message, const Variant& v) {
  for (const Assignment& a : v.assignments) {
    const std::string from = "--set " + a.key + "=" + a.value;
    const std::string to = "--vary " + a.key + "=" + a.value;
    for (std::size_t at = message.find(from); at != std::string::npos; at = message.find(from, at + to.size()))
      message.replace(at, from.size(), to);
  }
  return message;
}

// Errors about the key itself hold for every value: the sweep cannot mean them.
bool value_independent(const std::string& message) {
  return message.find("unknown key '") != std::string::npos ||
         message.find("expected a mapping here") != std::string::npos;
}

PreparedVariant prepare(const std::string& path, const std::vector<std::string>& sets, const Variant& v) {
  PreparedVariant p{v, std::nullopt, {}, {}};
  std::vector<std::string> overrides = sets;
  for (const std::string& o : v.overrides()) overrides.push_back(o);
  try {
    const config::ConfigNode tree = config::load_experiment_tree(path, overrides);
    models::ExperimentSpec e = config::parse_experiment(tree);
    p.config_sha256 = report::sha256_hex(config::merged_yaml(tree));
    p.experiment = std::move(e);
  } catch (const ConfigError& error) {
    p.error = name_vary(error.what(), v);
    if (value_independent(p.error)) throw ConfigError(p.error);
  }
  return p;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// One variant on the group's communicator. Every rank of the group throws
// alike (run_training's contract), so catching keeps the group in step.
SweepRow run_one(const PreparedVariant& p, const core::Communicator& group, const SweepRunOptions& options,
                 bool& simulation_failed) {
  const auto start = std::chrono::steady_clock::now();
  try {
    const models::training::RunResult result =
        run::run_training(*p.experiment, io::experiment_workload(*p.experiment), group,
                                       run::RunOptions{});
    const nlohmann::ordered_json report = report::report_json(result, *p.experiment, options.version, p.config_sha256);
    return row_from_report(p.variant, report, group.max(seconds_since(start)));
  } catch (const SimulationError& error) {
    simulation_failed = true;
    return invalid_row(p.variant, std::string("simulation failed: ") + error.what());
  } catch (const ConfigError& error) {
    return invalid_row(p.variant, name_vary(error.what(), p.variant));
  }
}

}  // namespace

std::vector<PreparedVariant> prepare_variants(const std::string& path, const std::vector<std::string>& sets,
                                              const std::vector<Variant>& grid) {
  std::vector<PreparedVariant> out;
  out.reserve(grid.size());
  for (const Variant& v : grid) out.push_back(prepare(path, sets, v));
  return out;
}

int group_count(int world_size, int jobs_per_run) {
  if (jobs_per_run == 0) return 1;
  if (jobs_per_run < 0 || world_size % jobs_per_run != 0)
    throw ConfigError("--jobs-per-run " + std::to_string(jobs_per_run) + ": expected a divisor of the " +
                      std::to_string(world_size) + " MPI ranks, found " +
                      (jobs_per_run < 0 ? "a negative number" : "one that does not divide them"));
  return world_size / jobs_per_run;
}

std::vector<std::size_t> dealt_to(std::size_t count, int group, int groups) {
  std::vector<std::size_t> out;
  for (std::size_t i = static_cast<std::size_t>(group); i < count; i += static_cast<std::size_t>(groups))
    out.push_back(i);
  return out;
}

SweepRunResult run_sweep(const std::vector<PreparedVariant>& variants, const core::Communicator& world,
                         const SweepRunOptions& options) {
  const int groups = group_count(world.size(), options.jobs_per_run);
  const int per_group = world.size() / groups;
  const int group_id = world.rank() / per_group;
  // Consecutive ranks share a group: on a cluster they are usually on one node.
  const core::Communicator group = groups == 1 ? world : world.split(group_id, world.rank());

  std::vector<const PreparedVariant*> runnable;
  SweepRunResult out;
  for (const PreparedVariant& p : variants) {
    if (p.experiment) runnable.push_back(&p);
    else out.rows.push_back(invalid_row(p.variant, p.error));  // known to every rank already
  }
  std::vector<SweepRow> mine;
  for (std::size_t i : dealt_to(runnable.size(), group_id, groups)) {
    mine.push_back(run_one(*runnable[i], group, options, out.simulation_failed));
    if (group.rank() == 0 && options.on_finished) options.on_finished(mine.back());
  }
  // Each group's first rank speaks for its group.
  for (const std::string& text : world.all_gather(group.rank() == 0 ? encode_rows(mine) : std::string()))
    for (SweepRow& r : decode_rows(text)) out.rows.push_back(std::move(r));
  out.simulation_failed = world.max(static_cast<std::int64_t>(out.simulation_failed)) != 0;
  std::sort(out.rows.begin(), out.rows.end(),
            [](const SweepRow& a, const SweepRow& b) { return a.grid_index < b.grid_index; });
  if (out.rows.size() != variants.size())
    throw SimulationError("sweep: gathered " + std::to_string(out.rows.size()) + " rows for " +
                          std::to_string(variants.size()) + " variants");
  return out;
}

}  // namespace pf::sweep
