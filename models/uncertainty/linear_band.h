// The cheap band every `preflight run` report carries (step_time_ms_low/high):
// the priors' effect on the step time to first order, from how the binding
// GPU spent its time, without simulating again.
//
// Each prior's 10th and 90th percentile multiplier moves the step by
//   GEMM rate         gemm time x (1/m - 1)
//   sustained clock   (gemm + attention) time x (1/m - 1)   (m after clipping)
//   attention rates   attention time x (1/m - 1)
//   memory-bound rate (norm + elementwise) time x (1/m - 1)
//   overlap slowdown  compute beside collectives: (total - exposed collective
//                     time) x (m - 1)
//   host overhead     host-bound time x (m - 1)
// and the band is the step minus / plus the root sum of squares of the
// downward / upward moves (independent priors). The communication priors
// (NCCL latencies and overhead, NVLink and NIC efficiency) change how much of
// a collective is exposed, which the run's totals cannot say: the cheap band
// leaves them out and says so (`covers`); `--uncertainty N` samples them.
#pragma once

#include <string>
#include <vector>

#include "models/uncertainty/model_error.h"
#include "models/uncertainty/parameters.h"

namespace pf::models::uncertainty {

// The binding GPU's time, seconds.
struct StepShares {
  double step = 0;
  double gemm = 0, attention = 0, memory_bound = 0;  // compute stream by kernel class
  double collective_total = 0, collective_exposed = 0;
  double host_bound = 0;
  // The two terms of every kernel's multiplier for the job's slowest GPU,
  // 1 + hypot(part_spread, lockstep_fluctuation), already in the shares
  // (models/compute/gpu_variability.h, SlowestGpu).
  double part_spread = 0;
  double lockstep_fluctuation = 0;
};

struct LinearBand {
  double low = 0, high = 0;          // seconds
  std::vector<std::string> covers;   // the parameters it accounts for
};

// With a model error (model_error.h), its P10 and P90 move the whole step by
// step x (multiplier - 1), one more independent move in the sums.
LinearBand linear_band(const std::vector<Prior>& priors, const StepShares& s,
                       const ModelError* model_error = nullptr);

// The triangular prior's quantile q as a multiplier.
double prior_quantile(const Prior& p, double q);

}  // namespace pf::models::uncertainty
