#include "models/network/network_lookahead.h"

#include <functional>
#include <queue>
#include <string>
#include <utility>

#include "core/error.h"

namespace pf::models::network {

core::Sync engine_sync(SyncMode mode) { return mode == SyncMode::window ? core::Sync::window : core::Sync::null_message; }

namespace {

core::SimTime min_positive_latency(const ClusterGraph& g) {
  core::SimTime best = core::SimTime::infinity();
  for (const Link& l : g.links()) {
    if (l.latency > core::SimTime::zero() && l.latency < best) best = l.latency;
  }
  return best.is_infinite() ? core::SimTime::from_ps(1) : best;
}

// A GPU is woken by server members at zero delay: relax all of its server's GPUs.
template <class Relax>
void relax_server_peers(const ClusterGraph& g, VertexId gpu, core::SimTime d, Relax&& relax) {
  const int per_node = g.shape().gpus_per_node;
  const int first = g.node_of_gpu(gpu) * per_node;
  for (int peer = first; peer < first + per_node; ++peer) relax(peer, d);
}

}  // namespace

std::vector<core::SimTime> lp_lookahead(const ClusterGraph& g, const partition::RankMapping& mapping) {
  const auto n = static_cast<std::size_t>(g.vertex_count());
  std::vector<core::SimTime> dist(n, core::SimTime::infinity());
  using Item = std::pair<core::SimTime, VertexId>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> frontier;
  auto relax = [&](VertexId v, core::SimTime d) {
    if (d < dist[static_cast<std::size_t>(v)]) {
      dist[static_cast<std::size_t>(v)] = d;
      frontier.emplace(d, v);
    }
  };
  // Sources: the near end of every cut link.
  for (const Link& l : g.links())
    if (mapping.rank_of(l.src) != mapping.rank_of(l.dst)) relax(l.src, l.latency);
  // Backwards along same-rank links: v -> u costs the link's latency.
  while (!frontier.empty()) {
    const auto [d, u] = frontier.top();
    frontier.pop();
    if (d > dist[static_cast<std::size_t>(u)]) continue;
    for (LinkId out : g.out_links(u)) {
      const Link& in = g.link(ClusterGraph::reverse(out));  // in.dst == u
      if (mapping.rank_of(in.src) == mapping.rank_of(u)) relax(in.src, d + in.latency);
    }
    if (g.vertex(u).kind == VertexKind::gpu) relax_server_peers(g, u, d, relax);
  }
  return dist;
}

core::EngineConfig engine_config(const ClusterGraph& g, const partition::RankMapping& mapping,
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
  c.lp_lookahead = lp_lookahead(g, mapping);
  return c;
}

}  // namespace pf::models::network
