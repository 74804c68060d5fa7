#include "models/workload/activation_offload.h"

#include "core/error.h"

namespace pf::models::workload {

std::vector<int> offload_sync_layers(int layers, int offloaded) {
  if (offloaded <= 0 || offloaded >= layers)
    throw SimulationError("activation offload: " + std::to_string(offloaded) + " of " + std::to_string(layers) +
                          " layers (expected 0 < offloaded < layers)");
  std::vector<int> w(static_cast<std::size_t>(offloaded));
  const int per = layers / offloaded, rest = layers % offloaded;
  int shift = 0;
  for (int i = 0; i < offloaded; ++i) {
    int sync = per * (i + 1) - 1;
    if (i < rest) shift = i + 1;
    w[static_cast<std::size_t>(i)] = sync + shift;
  }
  return w;
}

}  // namespace pf::models::workload
