#include "models/network/network_lookahead.h"

#include <string>

#include "core/error.h"

namespace pf::models::network {

core::Sync engine_sync(SyncMode mode) { return mode == SyncMode::window ? core::Sync::window : core::Sync::null_message; }

namespace {

core::SimTime min_positive_latency(const partition::ClusterGraph& g) {
  core::SimTime best = core::SimTime::infinity();
  for (const partition::Link& l : g.links()) {
    if (l.latency > core::SimTime::zero() && l.latency < best) best = l.latency;
  }
  return best.is_infinite() ? core::SimTime::from_ps(1) : best;
}

}  // namespace

core::EngineConfig engine_config(const partition::ClusterGraph& g, const partition::RankMapping& mapping,
                                 NetworkMode mode, SyncMode sync) {
  core::EngineConfig c;
  c.sync = engine_sync(sync);
  const partition::PartitionReport& r = mapping.report;
  if (mapping.ranks == 1 || r.lookahead.is_infinite()) {
    c.lookahead = min_positive_latency(g);
    return c;
  }
  if (r.lookahead <= core::SimTime::zero()) {
    throw ConfigError("topology: a link with zero latency joins LPs on different MPI ranks (lookahead would be 0); "
                      "expected link_latency_us, switch_latency_us and hardware.node.nic_latency_us to give "
                      "every network link a latency > 0");
  }
  c.lookahead = r.lookahead;
  if (mode == NetworkMode::packet) c.channel_lookahead = r.channel_matrix();
  return c;
}

}  // namespace pf::models::network
