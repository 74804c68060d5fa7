// How fast each GPU computes under the experiment's GPU faults
// (io/config/README.md, faults): which hardware prices its kernels (a mixed
// server), a straggler's slowdown, and per-kernel jitter.
//
//   GpuConditions c(experiment);
//   CostEstimate e = c.price(gpu, op);   // the pricer of the GPU's hardware, x slowdown x jitter
//
// Several faults on one GPU combine as models/spec/fault_spec.h's
// gpu_fault_figures says. Without GPU faults every GPU shares the
// experiment's pricer and price() is OpPricer::price.
//
// Jitter is a function of (seed, GPU, op id) alone: the same kernel gets the
// same draw however the cluster is split over MPI ranks, and sigma 0 gives
// factor 1 exactly (the fault-free run).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "models/spec/experiment_spec.h"
#include "models/training/op_pricing.h"

namespace pf::models::training {

class GpuConditions {
 public:
  explicit GpuConditions(const ExperimentSpec& experiment);

  CostEstimate price(int gpu, const workload::Op& op) const {
    if (per_gpu_.empty()) return pricers_[0]->price(op);
    const Condition& c = per_gpu_[static_cast<std::size_t>(gpu)];
    CostEstimate e = pricers_[c.pricer]->price(op);
    e.seconds *= c.slowdown * jitter(c, gpu, op.id);
    return e;
  }

 private:
  struct Condition {
    std::uint16_t pricer = 0;
    double slowdown = 1.0;
    JitterSpec jitter;
  };
  static double jitter(const Condition& c, int gpu, std::uint32_t op);

  std::vector<std::unique_ptr<OpPricer>> pricers_;  // [0]: the experiment's hardware, then one per hardware fault
  std::vector<Condition> per_gpu_;                  // empty: no GPU faults
};

// The multiplier a jitter spec gives kernel `op` of `gpu`: mean 1, spread sigma.
double jitter_factor(const JitterSpec& jitter, int gpu, std::uint32_t op);

}  // namespace pf::models::training
