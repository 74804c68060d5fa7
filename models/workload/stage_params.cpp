#include "models/workload/stage_params.h"

#include "models/workload/param_count.h"

namespace pf::models::workload {

namespace {

void add_layer(StageParams& s, const ModelSpec& model, const LocalDims& d, bool moe) {
  std::int64_t bias = arch_traits(model).bias ? 1 : 0;
  LayerParams p = layer_params(model, d, moe);
  s.dense += p.dense();
  s.expert += p.expert();
  s.sequence_parallel += 2 * p.norm + p.router + bias * d.hidden * (p.fc2 > 0 ? 2 : 1);
  if (d.mla) s.mla_down += mla_params(d).q_down + mla_params(d).kv_down;
}

}  // namespace

StageParams vstage_params(const WorkloadPlan& plan, int vstage) {
  const ModelSpec& model = plan.model();
  const LocalDims& d = plan.dims();
  StageParams s;
  int first = plan.split().first_layer(vstage);
  for (int layer = first; layer < first + plan.split().layer_count(vstage); ++layer) {
    add_layer(s, model, d, layer_is_moe(model, layer));
  }
  std::int64_t word = d.vocab_local * d.hidden;
  if (vstage == 0) {
    s.dense += embedding_params(model, d);
    if (plan.syncs_tied_embedding()) s.tied_embedding += word;
  }
  if (vstage == plan.vstages() - 1) {
    s.dense += final_norm_params(model, d) + lm_head_params(model, d, plan.separate_head());
    s.sequence_parallel += final_norm_params(model, d);
    if (plan.syncs_tied_embedding()) s.tied_embedding += word;
    s.dense += plan.mtp_embedding_copy();
    for (int i = 0; i < model.mtp_layers; ++i) {
      add_layer(s, model, d, mtp_is_moe(model));
      MtpParams m = mtp_params(model, d);
      s.dense += m.extra;
      s.sequence_parallel += m.extra;  // norms and the projection, whole on every tp rank
    }
  }
  return s;
}

StageParams stage_params(const WorkloadPlan& plan, int stage) {
  StageParams total;
  for (int c = 0; c < plan.chunks(); ++c) {
    StageParams s = vstage_params(plan, plan.split().vstage(stage, c));
    total.dense += s.dense;
    total.expert += s.expert;
    total.sequence_parallel += s.sequence_parallel;
    total.tied_embedding += s.tied_embedding;
    total.mla_down += s.mla_down;
  }
  return total;
}

}  // namespace pf::models::workload
