// What a collective's runs need to send a message: the engine and network of
// the current event, the sending GPU and the collective's identity.
#pragma once

#include <cstdint>
#include <vector>

#include "core/lp_context.h"
#include "models/collective/collective_events.h"
#include "models/collective/nccl_cost.h"
#include "models/network/network.h"

namespace pf::models::collective {

// Bytes of part i when `total` is cut into `parts` nearly equal parts.
inline std::uint64_t split(std::uint64_t total, std::uint64_t parts, std::uint64_t i) {
  return total / parts + (i < total % parts ? 1 : 0);
}

// Pieces of at most `piece` bytes that carry `bytes` (at least one).
inline std::uint32_t piece_count(std::uint64_t bytes, std::uint64_t piece) {
  return bytes == 0 ? 1u : static_cast<std::uint32_t>((bytes + piece - 1) / piece);
}

// What a message waits for before it leaves, beyond its port (nccl_cost.h):
// nothing (a pipelined piece behind the first), one step's latency (a message
// that depends on one received), or the base latency and a step (a message
// that starts the collective).
enum class Wait : std::uint8_t { none, step, first };

struct SendContext {
  core::LpContext& engine;
  network::Network& net;
  std::vector<network::Message>& scratch;  // reused for batches: no allocation per event
  int gpu = 0;
  StateKey key;
  const StepCost* cost = nullptr;  // the collective's NCCL costs; none: the links alone

  network::Message message(int dst, std::uint64_t bytes, std::uint8_t phase, std::uint8_t channel,
                           Wait wait = Wait::none) const {
    network::Message m;
    m.src_gpu = gpu;
    m.dst_gpu = dst;
    m.bytes = bytes;
    if (cost != nullptr) {
      if (cost->wire_factor != 1.0)
        m.bytes = static_cast<std::uint64_t>(static_cast<double>(bytes) * cost->wire_factor + 0.5);
      if (wait != Wait::none) {
        const bool same_server = net.graph().node_of_gpu(gpu) == net.graph().node_of_gpu(dst);
        m.delay = same_server ? cost->intra_step : cost->inter_step;
        if (wait == Wait::first) m.delay = m.delay + cost->base;
      }
    }
    m.tag = {key.group, key.seq, phase, channel};
    // One flow per (group, channel), as NCCL opens one connection per channel.
    m.flow = (key.group << 6) ^ channel;
    return m;
  }
  core::SimTime send(int dst, std::uint64_t bytes, std::uint8_t phase, std::uint8_t channel,
                     Wait wait = Wait::none) const {
    return net.send(engine, message(dst, bytes, phase, channel, wait));
  }
  // Asks for a PortFree event at `at` for this run.
  void notify_port_free(core::SimTime at, std::uint8_t phase, std::uint8_t channel) const {
    engine.send(at, static_cast<core::LpId>(gpu), PortFree{key, phase, channel});
  }
};

}  // namespace pf::models::collective
