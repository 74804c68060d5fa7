// The compute cost model the simulator calls once per kernel (DESIGN,
// models/: compute cost): the roofline for every op, refined by measured
// kernel tables where one covers the op, with a confidence for each answer.
//
//   CostModel model(gpu, load_calibration(dir));
//   CostEstimate e = model.estimate(gemm_op({4096, 12288, 4096}, Dtype::bf16));
//
// Which path prices what:
//   gemm                   gemm table, else roofline
//   gemm_backward          the dgrad and wgrad GEMMs (compute_op.h), each as gemm
//   attention(_backward)   attention table (forward, non-causal measurements;
//                          causal and backward are variants), else roofline
//   norm(_backward)        rmsnorm table (likewise), else roofline
//   elementwise, optimizer, embedding, loss
//                          roofline (basis roofline_only)
//
// Results of table lookups are memoised per op (estimate_cache.h), so the
// simulator may call estimate() for every op of every step. estimate() is
// const but updates that memo: use one CostModel per thread (each MPI rank
// builds its own).
#pragma once

#include <string>
#include <vector>

#include "models/compute/calibrated_estimator.h"
#include "models/compute/calibration_table.h"
#include "models/compute/compute_op.h"
#include "models/compute/cost_estimate.h"
#include "models/compute/estimate_cache.h"
#include "models/compute/roofline.h"
#include "models/spec/hardware_spec.h"

namespace pf::models {

struct CostModelOptions {
  EstimatorOptions estimator;
  std::size_t cache_slots = 4096;  // 0 disables the memo
  // Relative uncertainty reported for roofline_only estimates. Nothing
  // measured these ops, so it cannot be validated; 0.5 is of the order of the
  // plain roofline's mean error on the GH200 tables (62% attention, 75% GEMM,
  // 89% RMSNorm, dominated by small kernels).
  double roofline_only_uncertainty = 0.5;
};

class CostModel {
 public:
  // Tables of the same kind and dtype are merged into one estimator.
  explicit CostModel(const GpuSpec& gpu, const std::vector<CalibrationTable>& tables = {},
                     const CostModelOptions& options = {});

  // Loads gpu.calibration (a CSV file or a directory of them) when it is set;
  // io/ resolves that path relative to the hardware file before this runs.
  static CostModel from_spec(const GpuSpec& gpu, const CostModelOptions& options = {});

  CostEstimate estimate(const ComputeOp& op) const;

  const Roofline& roofline() const { return roofline_; }
  // The estimator that prices `kind` ops of `dtype`: an exact dtype match,
  // else the first table of that kind (the dtype gap then counts as
  // distance), else nullptr.
  const CalibratedEstimator* estimator(KernelTableKind kind, Dtype dtype) const;
  const std::vector<CalibratedEstimator>& estimators() const { return estimators_; }
  const EstimateCache& cache() const { return cache_; }

 private:
  CostEstimate compute(const ComputeOp& op) const;
  CostEstimate price_single(const ComputeOp& op) const;
  CostEstimate roofline_only(const ComputeOp& op) const;

  Roofline roofline_;
  CostModelOptions options_;
  std::vector<CalibratedEstimator> estimators_;
  mutable EstimateCache cache_;
};

}  // namespace pf::models
