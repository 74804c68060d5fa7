#include "models/compute/gpu_variability.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>

namespace pf::models {

double expected_max_standard_normal(int n) {
  if (n <= 1) return 0;
  // E[max] = integral of x n phi(x) Phi(x)^(n-1) dx. The integrand is smooth
  // and negligible outside [-12, 12]; Simpson's rule on 24,000 steps is exact
  // to well below 1e-9 for any n a cluster has.
  constexpr double lo = -12, hi = 12;
  constexpr int steps = 24000;
  const double h = (hi - lo) / steps;
  const double nn = static_cast<double>(n);
  auto f = [nn](double x) {
    const double phi = std::exp(-0.5 * x * x) / std::sqrt(2 * std::numbers::pi);
    const double cdf = 0.5 * std::erfc(-x / std::numbers::sqrt2);
    if (cdf <= 0) return 0.0;
    return x * nn * phi * std::exp((nn - 1) * std::log(cdf));
  };
  double sum = f(lo) + f(hi);
  for (int i = 1; i < steps; ++i) sum += f(lo + i * h) * (i % 2 == 1 ? 4 : 2);
  return sum * h / 3;
}

namespace {

// sigma E[max of n], without the quadrature when there is no spread.
double slowest_term(double sigma, int n) { return sigma > 0 ? sigma * expected_max_standard_normal(n) : 0; }

}  // namespace

double slowest_gpu_factor(double part_sigma, int gpus, double fluctuation_sigma, int lockstep_gpus) {
  return SlowestGpu{lockstep_gpus, slowest_term(part_sigma, gpus), slowest_term(fluctuation_sigma, lockstep_gpus)}
      .factor();
}

int lockstep_gpus(const ParallelismSpec& p, int gpus, bool replicas_in_lockstep) {
  if (replicas_in_lockstep) return std::max(1, gpus);
  const std::int64_t tp_cp = static_cast<std::int64_t>(p.tp) * p.cp;
  // Expert tensor parallelism = tp: each EP group takes one rank of each of
  // ep TP groups. Narrower experts (MoE parallel folding): EP groups are
  // consecutive ranks of the stage, covering max(tp x cp, ep) of them.
  const std::int64_t stage = p.ep <= 1 ? tp_cp : p.etp() == p.tp ? tp_cp * p.ep : std::max<std::int64_t>(tp_cp, p.ep);
  return static_cast<int>(std::clamp<std::int64_t>(stage * p.pp, 1, std::max(1, gpus)));
}

bool replicas_gather_layers(const ExperimentSpec& e) {
  const ParallelismSpec& p = e.parallelism;
  if (p.zero_stage >= 3) return true;
  const std::int64_t per_step = static_cast<std::int64_t>(e.training.micro_batch_size) * std::max(1, p.dp);
  const bool one_microbatch = e.training.global_batch_size <= per_step;
  return p.zero_stage >= 1 && p.dp > 1 && e.training.overlap_param_gather && one_microbatch;
}

bool replicas_reduce_amax(const ExperimentSpec& e) {
  return e.training.dtype == Dtype::fp8 && e.training.fp8_recipe == Fp8Recipe::delayed && e.parallelism.dp > 1;
}

bool replicas_reduce_loss(const ExperimentSpec& e) {
  return e.training.loss_reduce == LossReduce::microbatch && e.parallelism.dp > 1;
}

bool replicas_in_lockstep(const ExperimentSpec& e) {
  return replicas_gather_layers(e) || replicas_reduce_amax(e) || replicas_reduce_loss(e);
}

SlowestGpu slowest_gpu(const ExperimentSpec& e) {
  const int gpus = e.gpu_count();
  const int lockstep = lockstep_gpus(e.parallelism, gpus, replicas_in_lockstep(e));
  return {lockstep, slowest_term(e.hardware.gpu.speed_spread, gpus),
          slowest_term(e.hardware.gpu.speed_fluctuation, lockstep)};
}

}  // namespace pf::models
