// Fits the shape-aware GEMM model (gemm_model.h) of one GPU to measured GEMM
// times, as `preflight calibrate` does: the large-GEMM efficiency
// (gpu.efficiency.gemm) and every gpu.gemm parameter, minimising the mean
// absolute log error |ln(predicted / measured)| over the rows (a factor of 2
// too slow costs what a factor of 2 too fast does).
//
// The search is a bounded coordinate descent with multiplicative steps (30%,
// halved whenever no single-parameter move improves the fit, down to 0.2%):
// the objective is piecewise smooth (tile and wave counts make it step-wise in
// the shape, not in the parameters), has nine parameters and is cheap, so a
// derivative-free local search from the preset's values converges in a few
// thousand evaluations. Deterministic for the same rows in the same order.
//
// Fit and error both price the rows with gpu.sustained_clock = 1: a measured
// table is a short benchmark at the quoted clock, and the derate to the
// sustained clock applies in training runs only (roofline.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/compute/calibration_table.h"
#include "models/spec/hardware_spec.h"

namespace pf::models {

struct GemmFitError {
  int rows = 0;
  double median = 0;       // of |predicted − measured| / measured
  double p90 = 0;
  double mean = 0;
  double median_signed = 0;  // of (predicted − measured) / measured
};

// Error of the hardware file's GEMM model on GEMM rows (other kinds are skipped).
// gpu.sm_count must be positive.
GemmFitError gemm_model_error(const GpuSpec& gpu, const std::vector<Measurement>& rows);

// A random split of rows into (fit, held out), fixed by `seed` (Fisher-Yates on
// mt19937_64, whose output the C++ standard fixes: the same on every platform).
struct RowSplit {
  std::vector<Measurement> fit;
  std::vector<Measurement> held_out;
};
RowSplit split_rows(const std::vector<Measurement>& rows, double held_out_fraction, std::uint64_t seed);

// Names of the parameters a fit can move, as the hardware file spells them:
// "efficiency.gemm", "gemm.memory_efficiency", ... "gemm.fixed_us",
// "efficiency.gemm_fp8".
const std::vector<std::string>& gemm_fit_parameter_names();

// The ones a fit on these rows moves. fp8 GEMMs run at efficiency.gemm_fp8
// when the hardware file sets it, and share the shape terms with the 16-bit
// GEMMs: a table of fp8 rows only then fits efficiency.gemm_fp8 alone (its
// shape terms are the 16-bit table's), one with both dtypes fits everything;
// without efficiency.gemm_fp8, fp8 rows fit the 16-bit parameters they use.
std::vector<std::string> gemm_fitted_parameters(const GpuSpec& start, const std::vector<Measurement>& rows);

// `start` with efficiency.gemm and gemm_model replaced by the fitted values;
// parameters named in `fixed` keep their value from `start` (e.g. keep
// efficiency.gemm from a large-GEMM measurement when the table holds only
// small shapes, so that the fit cannot trade it against k_overhead).
// Throws pf::ConfigError when sm_count is not positive, no row is a GEMM or a
// fixed name is not a parameter.
GpuSpec fit_gemm_model(const GpuSpec& start, const std::vector<Measurement>& rows,
                       const std::vector<std::string>& fixed = {});

}  // namespace pf::models
