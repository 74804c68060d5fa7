// Per-GPU figures gathered while the program runs, for the report's
// bottleneck and uncertainty blocks. Only the binding GPU's are reported, but
// which GPU binds is known only at the end, so every GPU keeps them.
#pragma once

#include <array>
#include <cstdint>

#include "models/compute/cost_estimate.h"
#include "models/workload/op.h"

namespace pf::models::training {

struct GpuStats {
  std::array<std::int64_t, 3> phase_compute_ps{};            // compute busy per phase (fwd, bwd, opt)
  // Per op kind: summed duration (comm: issue to done) and count, side by
  // side: one cache line per completion, not two (1,024 GPUs' stats do not stay cached).
  struct KindTotal {
    std::int64_t ps = 0;
    std::uint32_t count = 0;
  };
  std::array<KindTotal, workload::kOpKindCount> kinds{};
  std::int64_t measured_ps = 0;  // compute time priced from a table (calibrated or interpolated)
  std::uint8_t bases = 0;      // bit per CostBasis seen
  std::int64_t end_ps = 0;     // the last op's end
  // The longest communication op of this GPU.
  std::int64_t longest_ps = -1;
  workload::Op longest;
};

}  // namespace pf::models::training
