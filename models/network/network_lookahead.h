// The engine settings a network run needs: lookahead from the rank mapping.
//
// Packet mode: every cross-rank event crosses one cut link, so each pair of
// ranks may use the smallest latency of the links between them (the
// partition's channel matrix). Analytical mode: a delivery goes straight from
// the sending GPU to the receiving GPU, possibly to a rank with no direct link
// to the sender; its path still crosses at least one cut link, so one uniform
// lookahead, the smallest cut-link latency, is safe for every pair.
// On one rank nothing crosses; the engine still wants a positive figure, so
// the smallest positive link latency is used (1 ps if every link has none).
#pragma once

#include "core/engine_config.h"
#include "models/spec/simulation_spec.h"
#include "models/network/lp_partition.h"

namespace pf::models::network {

core::Sync engine_sync(SyncMode mode);

// Per LP (= vertex): the smallest delay from an event there to an event on
// another rank, i.e. the shortest latency path to and across a cut link,
// through same-rank links only (a link's far end hears of a chunk its latency
// later, at the soonest). GPUs of one server may also signal each other with
// no delay (the closed-form server collectives), which the search allows for.
// A GPU sits ~1.3 us (PCIe, NIC, leaf, cut uplink) from a leaf-spine cut, a
// leaf 0.23 us: windows bound by GPU events are ~6x longer (engine.h). Infinity
// for a vertex with no path to another rank; all infinity on one rank.
std::vector<core::SimTime> lp_lookahead(const ClusterGraph& g, const partition::RankMapping& mapping);

// Throws pf::ConfigError when a zero-latency link is cut between ranks.
core::EngineConfig engine_config(const ClusterGraph& g, const partition::RankMapping& mapping,
                                 NetworkMode mode, SyncMode sync);

}  // namespace pf::models::network
