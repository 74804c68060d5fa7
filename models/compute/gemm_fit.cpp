#include "models/compute/gemm_fit.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>

#include "core/error.h"
#include "models/compute/roofline.h"

namespace pf::models {
namespace {

struct Parameter {
  const char* name;
  double* value;
  double lo;
  double hi;
};

std::vector<const Measurement*> gemm_rows(const std::vector<Measurement>& rows) {
  std::vector<const Measurement*> out;
  for (const Measurement& m : rows) {
    if (m.op.cls == OpClass::gemm) out.push_back(&m);
  }
  return out;
}

// Measured kernel tables are short benchmarks: they ran at the clock the
// peaks are quoted at, not at the sustained clock of a training run (nor
// under the run's power limit), so the GEMM model is fitted and checked
// against them without that derate.
GpuSpec benchmark_state(GpuSpec gpu) {
  gpu.sustained_clock = 1.0;
  gpu.power_limit_w = 0;
  return gpu;
}

double mean_log_error(const GpuSpec& gpu, const std::vector<const Measurement*>& rows) {
  const Roofline model(benchmark_state(gpu));
  double sum = 0;
  for (const Measurement* m : rows) sum += std::abs(std::log(model.seconds(m->op) / m->seconds));
  return sum / static_cast<double>(rows.size());
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto i = static_cast<std::size_t>(pos);
  if (i + 1 >= v.size()) return v.back();
  return v[i] + (pos - static_cast<double>(i)) * (v[i + 1] - v[i]);
}

void require_shape_model(const GpuSpec& gpu) {
  if (gpu.sm_count <= 0) {
    throw ConfigError("hardware gpu.sm_count: expected a positive SM count for the GEMM model, found " +
                      std::to_string(gpu.sm_count));
  }
}

// One coordinate move: value·(1 ± step) within bounds (a zero value tries 1%
// of the upper bound). Keeps the move when it lowers the objective.
bool try_moves(Parameter& p, double step, double& best, const std::function<double()>& objective) {
  bool improved = false;
  for (const double sign : {+1.0, -1.0}) {
    const double old = *p.value;
    const double moved = old > 0 ? old * (1 + sign * step) : (sign > 0 ? 0.01 * p.hi : old);
    *p.value = std::clamp(moved, p.lo, p.hi);
    const double loss = objective();
    if (loss < best) {
      best = loss;
      improved = true;
    } else {
      *p.value = old;
    }
  }
  return improved;
}

}  // namespace

RowSplit split_rows(const std::vector<Measurement>& rows, double held_out_fraction, std::uint64_t seed) {
  std::vector<std::size_t> order(rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937_64 rng(seed);
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
  const auto n_held = static_cast<std::size_t>(held_out_fraction * static_cast<double>(rows.size()));
  RowSplit s;
  for (std::size_t i = 0; i < order.size(); ++i) (i < n_held ? s.held_out : s.fit).push_back(rows[order[i]]);
  return s;
}

GemmFitError gemm_model_error(const GpuSpec& gpu, const std::vector<Measurement>& rows) {
  require_shape_model(gpu);
  const Roofline model(benchmark_state(gpu));
  std::vector<double> abs_err, signed_err;
  for (const Measurement* m : gemm_rows(rows)) {
    const double e = model.seconds(m->op) / m->seconds - 1;
    signed_err.push_back(e);
    abs_err.push_back(std::abs(e));
  }
  GemmFitError out;
  out.rows = static_cast<int>(abs_err.size());
  if (abs_err.empty()) return out;
  out.median = quantile(abs_err, 0.5);
  out.p90 = quantile(abs_err, 0.9);
  double sum = 0;
  for (const double e : abs_err) sum += e;
  out.mean = sum / static_cast<double>(abs_err.size());
  out.median_signed = quantile(signed_err, 0.5);
  return out;
}

const std::vector<std::string>& gemm_fit_parameter_names() {
  static const std::vector<std::string> names = {
      "efficiency.gemm",      "gemm.memory_efficiency",      "gemm.unaligned_efficiency",
      "gemm.unaligned_memory_efficiency", "gemm.odd_efficiency", "gemm.odd_memory_efficiency",
      "gemm.k_overhead",      "gemm.tile_exponent",          "gemm.fixed_us", "efficiency.gemm_fp8"};
  return names;
}

std::vector<std::string> gemm_fitted_parameters(const GpuSpec& start, const std::vector<Measurement>& rows) {
  bool wide = false, fp8 = false;
  for (const Measurement* m : gemm_rows(rows)) (m->op.dtype == Dtype::fp8 ? fp8 : wide) = true;
  const bool own_fp8_rate = fp8 && start.efficiency.gemm_fp8 > 0;
  std::vector<std::string> out;
  for (const std::string& name : gemm_fit_parameter_names()) {
    if (name == "efficiency.gemm_fp8") {
      if (own_fp8_rate) out.push_back(name);
    } else if (wide || !own_fp8_rate) {
      out.push_back(name);
    }
  }
  return out;
}

GpuSpec fit_gemm_model(const GpuSpec& start, const std::vector<Measurement>& rows,
                       const std::vector<std::string>& fixed) {
  require_shape_model(start);
  const std::vector<const Measurement*> gemms = gemm_rows(rows);
  if (gemms.empty()) throw ConfigError("calibrate: expected GEMM rows (M,N,K,t_measured_ms) to fit, found none");
  GpuSpec gpu = start;
  GemmModelSpec& g = gpu.gemm_model;
  const std::vector<std::string>& names = gemm_fit_parameter_names();
  const std::vector<Parameter> all = {
      {names[0].c_str(), &gpu.efficiency.gemm, 0.01, 1.0},
      {names[1].c_str(), &g.memory_efficiency, 0.01, 1.0},
      {names[2].c_str(), &g.unaligned_efficiency, 0.01, 1.0},
      {names[3].c_str(), &g.unaligned_memory_efficiency, 0.01, 1.0},
      {names[4].c_str(), &g.odd_efficiency, 0.01, 1.0},
      {names[5].c_str(), &g.odd_memory_efficiency, 0.01, 1.0},
      {names[6].c_str(), &g.k_overhead, 0.0, 4096.0},
      {names[7].c_str(), &g.tile_exponent, 0.0, 2.0},
      {names[8].c_str(), &g.fixed_us, 0.0, 100.0},
      {names[9].c_str(), &gpu.efficiency.gemm_fp8, 0.01, 1.0},
  };
  for (const std::string& f : fixed) {
    if (std::find(names.begin(), names.end(), f) == names.end()) {
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      throw ConfigError("calibrate --fix: expected one of " + list + ", found '" + f + "'");
    }
  }
  const std::vector<std::string> fitted = gemm_fitted_parameters(start, rows);
  std::vector<Parameter> params;
  for (const Parameter& p : all) {
    const bool free = std::find(fixed.begin(), fixed.end(), p.name) == fixed.end();
    if (free && std::find(fitted.begin(), fitted.end(), p.name) != fitted.end()) params.push_back(p);
  }
  const std::function<double()> objective = [&] { return mean_log_error(gpu, gemms); };
  double best = objective();
  int rounds = 0;
  for (double step = 0.3; step >= 0.002 && rounds < 1000; ++rounds) {
    bool improved = false;
    for (Parameter& p : params) improved = try_moves(p, step, best, objective) || improved;
    if (!improved) step *= 0.5;
  }
  return gpu;
}

}  // namespace pf::models
