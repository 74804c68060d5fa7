#include "io/sweep/uncertainty_run.h"

#include "core/error.h"
#include "io/sweep/sweep_runner.h"
#include "io/sweep/variant_value.h"

namespace pf::sweep {
namespace {

namespace mu = models::uncertainty;

Variant variant_of(const mu::SamplePlan& plan, const std::vector<double>& multipliers, std::size_t index) {
  Variant v;
  v.grid_index = index;
  for (std::size_t i = 0; i < plan.priors.size(); ++i) {
    const mu::Prior& p = plan.priors[i];
    v.assignments.push_back({std::string(p.parameter->key), exact_text(p.value(multipliers[i]))});
  }
  return v;
}

mu::RunFigures figures_of(const SweepRow& row) {
  mu::RunFigures f;
  f.valid = row.valid;
  f.step_ms = row.step_time_ms;
  f.mfu = row.mfu;
  f.tokens_per_s = row.tokens_per_s;
  return f;
}

}  // namespace

std::vector<Variant> uncertainty_variants(const mu::SamplePlan& plan) {
  std::vector<Variant> out;
  for (const auto& m : plan.multipliers) out.push_back(variant_of(plan, m, out.size()));
  for (const auto& m : plan.one_at_a_time) out.push_back(variant_of(plan, m, out.size()));
  return out;
}

mu::Band run_uncertainty(const std::string& experiment_path, const std::vector<std::string>& sets,
                         const models::ExperimentSpec& e, const core::Communicator& world,
                         const UncertaintyOptions& options) {
  const mu::SamplePlan plan = mu::plan_samples(mu::priors_for(e), options.samples, options.seed, mu::model_error_prior(e));
  const std::vector<Variant> variants = uncertainty_variants(plan);
  const std::vector<PreparedVariant> prepared = prepare_variants(experiment_path, sets, variants);
  int finished = 0;
  const int total = static_cast<int>(variants.size());
  SweepRunOptions run;
  run.jobs_per_run = options.jobs_per_run;
  run.version = options.version;
  if (options.on_progress) run.on_finished = [&](const SweepRow&) { options.on_progress(++finished, total); };
  const SweepRunResult result = run_sweep(prepared, world, run);
  std::vector<mu::RunFigures> sampled, ends;
  for (const SweepRow& row : result.rows) {
    (row.grid_index < plan.multipliers.size() ? sampled : ends).push_back(figures_of(row));
  }
  return mu::summarise(plan, options.seed, sampled, ends);
}

}  // namespace pf::sweep
