#include "models/compute/cost_model.h"

#include "models/compute/kernel_features.h"

namespace pf::models {
namespace {

// Tables of one kind and dtype become one table, in the order given.
std::vector<CalibrationTable> merge_tables(const std::vector<CalibrationTable>& tables) {
  std::vector<CalibrationTable> merged;
  for (const CalibrationTable& t : tables) {
    CalibrationTable* into = nullptr;
    for (auto& m : merged) {
      if (m.kind == t.kind && m.dtype == t.dtype) into = &m;
    }
    if (!into) {
      merged.push_back(t);
      continue;
    }
    into->source += "+" + t.source;
    into->rows.insert(into->rows.end(), t.rows.begin(), t.rows.end());
    into->unmeasured_rows += t.unmeasured_rows;
  }
  return merged;
}

bool table_priced(OpClass cls) {
  KernelTableKind kind;
  return cls == OpClass::gemm_backward || table_kind_for(cls, &kind);
}

}  // namespace

CostModel::CostModel(const GpuSpec& gpu, const std::vector<CalibrationTable>& tables, const CostModelOptions& options)
    : roofline_(gpu), options_(options), cache_(options.cache_slots) {
  for (CalibrationTable& table : merge_tables(tables)) {
    set_attention_kernel(table, flash_kernel(gpu.calibration_attention));
    estimators_.emplace_back(table, roofline_, options_.estimator);
  }
}

CostModel CostModel::from_spec(const GpuSpec& gpu, const CostModelOptions& options) {
  if (gpu.calibration.empty()) return CostModel(gpu, {}, options);
  return CostModel(gpu, load_calibration(gpu.calibration), options);
}

const CalibratedEstimator* CostModel::estimator(KernelTableKind kind, Dtype dtype) const {
  const CalibratedEstimator* first = nullptr;
  for (const auto& e : estimators_) {
    if (e.kind() != kind) continue;
    if (e.dtype() == dtype) return &e;
    if (!first) first = &e;
  }
  return first;
}

CostEstimate CostModel::estimate(const ComputeOp& op) const {
  const bool shape_model = roofline_.shape_aware_gemms() && (op.cls == OpClass::gemm || op.cls == OpClass::gemm_backward);
  if (!shape_model && (estimators_.empty() || !table_priced(op.cls))) return roofline_only(op);
  const std::uint64_t h = EstimateCache::hash(op);
  if (const CostEstimate* hit = cache_.find(op, h)) return *hit;
  const CostEstimate e = compute(op);
  cache_.store(op, h, e);
  return e;
}

CostEstimate CostModel::compute(const ComputeOp& op) const {
  if (estimators_.empty() || !table_priced(op.cls)) return roofline_only(op);
  if (op.cls == OpClass::gemm_backward) {
    return combine_sequential(price_single(gemm_op(gemm_dgrad_shape(op.gemm), op.dtype)),
                              price_single(gemm_op(gemm_wgrad_shape(op.gemm), op.dtype)));
  }
  return price_single(op);
}

CostEstimate CostModel::price_single(const ComputeOp& op) const {
  KernelTableKind kind;
  if (!table_kind_for(op.cls, &kind)) return roofline_only(op);
  const CalibratedEstimator* e = estimator(kind, op.dtype);
  return e ? e->estimate(op) : roofline_only(op);
}

CostEstimate CostModel::roofline_only(const ComputeOp& op) const {
  if (op.cls == OpClass::gemm_backward) {
    // Two kernels, as on the calibrated path, so both paths agree on what runs.
    return combine_sequential(roofline_only(gemm_op(gemm_dgrad_shape(op.gemm), op.dtype)),
                              roofline_only(gemm_op(gemm_wgrad_shape(op.gemm), op.dtype)));
  }
  CostEstimate e;
  e.seconds = roofline_.seconds(op);
  e.basis = CostBasis::roofline_only;
  e.relative_uncertainty = options_.roofline_only_uncertainty;
  return e;
}

}  // namespace pf::models
