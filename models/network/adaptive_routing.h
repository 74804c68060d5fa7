// topology.routing: adaptive (io/config/README.md): every switch sends each
// chunk of an inter-server message out of the least-loaded of its equal-cost
// ports, as InfiniBand adaptive routing and Spectrum-X's packet spraying do
// (NVIDIA Quantum-2 and Spectrum-X datasheets; the switch picks per packet
// among the ports that lead to the destination, by queue depth).
//
// The choice is local: a leaf picks the spine uplink, a spine (for another
// pod) the core uplink, by the earliest time the port is free; ties go to the
// port after a hash of (source, destination), so idle fabrics still spread
// flows. Downward hops follow from the destination alone (a core reaches its
// spine of the destination pod, a spine the destination leaf), so no path
// travels with the chunk. Failed links are never chosen, nor a branch whose
// way down is failed. Chunks of one message then arrive out of order; the
// destination reassembles them (reassembly.h). Analytical mode and the
// alpha-beta views keep ECMP's hashed path (no queues to compare).
#pragma once

#include <cstdint>

#include "core/sim_time.h"
#include "models/network/link_ports.h"
#include "models/network/topology.h"

namespace pf::models::network {

// The link a chunk from src_gpu to dst_gpu (on another server) leaves `at`
// on, at time `now`.
LinkId adaptive_next_link(const ClusterGraph& g, const LinkPorts& ports, VertexId at,
                                     int src_gpu, int dst_gpu, core::SimTime now);

}  // namespace pf::models::network
