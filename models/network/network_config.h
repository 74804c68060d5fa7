// How the network is simulated (io/config/README.md, `simulation`), plus the one
// fidelity knob that is not a configuration key: NVLink granularity.
#pragma once

#include <algorithm>
#include <cstdint>

#include "models/network/message.h"
#include "models/spec/simulation_spec.h"

namespace pf::models::network {

// Inside a server the NVSwitch is non-blocking: only the GPUs' ports
// serialise. So in packet mode a message may cross it as one piece (coarse:
// one event at the NVSwitch per message) instead of chunk by chunk (fine: one
// event per chunk). Both give the same times when ports are the bottleneck;
// coarse costs a chunk-count fewer events.
enum class NvlinkFidelity : std::uint8_t { coarse, fine };

struct NetworkConfig {
  NetworkMode mode = NetworkMode::packet;
  std::uint64_t chunk_bytes = 1 << 20;  // clamped to [1, kMaxChunkBytes]
  NvlinkFidelity nvlink = NvlinkFidelity::coarse;
  // Analytical mode: the GPUs of the run are GPUs 0 .. active_gpus - 1 (0 =
  // all). A NIC serving k of them gives each k-th of its rate (nic_share.h).
  int active_gpus = 0;
};

inline NetworkConfig network_config(const SimulationSpec& sim, NvlinkFidelity nvlink = NvlinkFidelity::coarse) {
  NetworkConfig c;
  c.mode = sim.network;
  c.chunk_bytes = static_cast<std::uint64_t>(std::max<std::int64_t>(1, sim.chunk_bytes));
  c.nvlink = nvlink;
  return c;
}

const char* to_string(NetworkMode mode);
const char* to_string(NvlinkFidelity fidelity);

}  // namespace pf::models::network
