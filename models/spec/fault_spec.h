// What-if faults and heterogeneity in the simulated cluster (io/config/README.md,
// faults): the experiment's `faults:` list, one entry per fault, in the order
// written. GPU faults change how fast (and on what hardware) some GPUs
// compute; link and switch faults change the fabric the routes and ports see
// (models/network/faults.h applies them to the cluster graph;
// models/training/gpu_conditions.h to the GPUs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/spec/hardware_spec.h"

namespace pf::models {

enum class JitterDistribution { lognormal, normal };

// Per-kernel noise: every compute kernel of the GPU runs `factor` times its
// modelled duration, factor drawn from the distribution with mean 1 and
// standard deviation ~sigma (lognormal: exp(sigma z - sigma^2/2); normal:
// 1 + sigma z, clipped at 0.05). The draw is a hash of (seed, GPU, op), so it
// does not depend on how the cluster is split over MPI ranks.
struct JitterSpec {
  JitterDistribution distribution = JitterDistribution::lognormal;
  double sigma = 0;  // 0: no jitter
  std::uint64_t seed = 0;
};

enum class FaultTarget { gpus, link, switch_vertex, random_links };

struct FaultSpec {
  FaultTarget target = FaultTarget::gpus;
  std::string origin;     // "exp.yaml:14: faults[2]": what errors found when applying it name
  std::string written;    // the target as written: "17", "leaf3->spine1", "spine2", "random_links"

  // target gpus
  std::vector<int> gpus;                  // ascending, distinct
  double compute_slowdown = 1.0;          // every compute kernel runs this many times longer
  std::optional<HardwareSpec> hardware;   // a different GPU (and, for whole servers, its links)
  std::string hardware_name;              // the file it came from, or "inline"
  JitterSpec jitter;

  // target link / switch_vertex / random_links
  std::string src, dst;                   // link: vertex names ("leaf3", "spine1"); switch: src
  bool both_directions = false;           // link "a<->b": the cable; "a->b": one direction
  double bandwidth_factor = 1.0;          // the link runs at this fraction of its bandwidth
  bool failed = false;                    // routes avoid it
  double fraction = 0;                    // random_links: share of the fabric's cables
  std::uint64_t seed = 0;                 // random_links: which ones
};

// What the GPU faults make of each GPU. Several faults on one GPU: slowdowns
// multiply; the last `hardware` and the last `compute_jitter` naming it apply.
struct GpuFaultFigures {
  double compute_slowdown = 1.0;
  JitterSpec jitter;
  int hardware_fault = -1;  // index of the fault whose hardware the GPU has; -1: the experiment's
};

inline std::vector<GpuFaultFigures> gpu_fault_figures(const std::vector<FaultSpec>& faults, int gpu_count) {
  std::vector<GpuFaultFigures> out(static_cast<std::size_t>(gpu_count));
  for (std::size_t i = 0; i < faults.size(); ++i) {
    const FaultSpec& f = faults[i];
    if (f.target != FaultTarget::gpus) continue;
    for (int gpu : f.gpus) {
      GpuFaultFigures& g = out[static_cast<std::size_t>(gpu)];
      g.compute_slowdown *= f.compute_slowdown;
      if (f.jitter.sigma > 0) g.jitter = f.jitter;
      if (f.hardware) g.hardware_fault = static_cast<int>(i);
    }
  }
  return out;
}

}  // namespace pf::models
