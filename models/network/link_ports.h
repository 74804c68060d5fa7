// Every directed link's output port: a FIFO served at the link's bandwidth,
// with virtual cut-through forwarding.
//
// A chunk of b bytes offered to link l with its head ready at `head` and its
// tail ready at `tail` (tail >= head: the tail may still be arriving on the
// upstream link) occupies the port from start = max(head, free_l) until
// end = max(start + b / bw_l, tail); its head reaches the far end at
// start + latency_l and its tail at end + latency_l. Over one idle path this
// gives exactly latency + b / bottleneck (the alpha-beta cost), and queues
// form only where ports are shared: congestion, incast and oversubscription
// follow from the FIFOs. Cut-through rather than store-and-forward because
// InfiniBand, Ethernet data-centre switches and NVSwitch all forward a packet
// before its tail has arrived (InfiniBand Architecture Specification vol. 1,
// ch. 18 "switches"; NVIDIA Quantum and Spectrum switch datasheets).
//
// Ownership: a port's state is touched only by events at the LP the link
// leaves, so its updates happen in that LP's commit order on any rank count.
#pragma once

#include <cstdint>
#include <vector>

#include "core/sim_time.h"
#include "models/network/topology.h"

namespace pf::models::network {

// Per-link statistics for reports and the timeline's /links table.
struct LinkCounters {
  std::int64_t busy_ps = 0;            // time spent serialising bytes
  std::uint64_t bytes = 0;
  std::uint64_t chunks = 0;
  std::uint64_t peak_queue_bytes = 0;  // largest backlog an arriving chunk found, itself included
};

class LinkPorts {
 public:
  explicit LinkPorts(const ClusterGraph& g);

  struct Slot {
    core::SimTime start;  // first byte leaves
    core::SimTime end;    // last byte leaves
  };

  // A chunk through link l (see the header comment).
  Slot transmit(LinkId l, core::SimTime head, core::SimTime tail, std::uint64_t bytes);

  // Analytical mode: the port is held for `duration` (bytes at the path's
  // bottleneck rate), starting when it is free and not before `at`.
  Slot hold(LinkId l, core::SimTime at, core::SimTime duration, std::uint64_t bytes);

  core::SimTime serialisation(LinkId l, std::uint64_t bytes) const {
    return core::SimTime::from_ps(
        static_cast<std::int64_t>(static_cast<double>(bytes) * ps_per_byte_[static_cast<std::size_t>(l)] + 0.5));
  }
  core::SimTime free_at(LinkId l) const { return free_at_[static_cast<std::size_t>(l)]; }
  const LinkCounters& counters(LinkId l) const { return counters_[static_cast<std::size_t>(l)]; }

 private:
  void count(LinkId l, core::SimTime at, core::SimTime busy, std::uint64_t bytes);

  std::vector<core::SimTime> free_at_;
  std::vector<double> ps_per_byte_;
  std::vector<LinkCounters> counters_;
};

}  // namespace pf::models::network
