#include "models/collective/group_table.h"

#include <algorithm>

#include "models/network/routing.h"

namespace pf::models::collective {
namespace {

network::PathStats between(const network::ClusterGraph& g, int a, int b) {
  network::Path path;
  network::route(g, a, b, 0, path);
  return network::path_stats(g, path);
}

}  // namespace

GroupLinks measure_links(const network::ClusterGraph& g, const Group& group) {
  GroupLinks l;
  int fullest = 0;
  for (int j = 0; j < group.nodes(); ++j)
    if (group.on_node(j) > group.on_node(fullest)) fullest = j;
  // Inside servers: the slowest neighbour pair of any server (a server given
  // other hardware or a degraded NVLink by a fault; all pairs are alike otherwise).
  bool intra_seen = false;
  for (int j = 0; j < group.nodes(); ++j) {
    for (int q = 0; q + 1 < group.on_node(j); ++q) {
      const network::PathStats s = between(g, group.gpu_at(j, q), group.gpu_at(j, q + 1));
      if (!intra_seen || s.bottleneck_Bps < l.intra_Bps) l.intra_Bps = s.bottleneck_Bps;
      if (!intra_seen || s.latency.seconds() > l.intra_latency_s) l.intra_latency_s = s.latency.seconds();
      intra_seen = true;
    }
  }
  if (group.nodes() >= 2) {
    const network::PathStats s = between(g, group.gpu_at(0, 0), group.gpu_at(1, 0));
    l.inter_latency_s = s.latency.seconds();
    l.inter_Bps = s.bottleneck_Bps;
  }
  std::vector<int> nics;
  for (int q = 0; q < group.on_node(fullest); ++q) nics.push_back(g.nic_of_gpu(group.gpu_at(fullest, q)));
  std::sort(nics.begin(), nics.end());
  l.rails = static_cast<int>(std::unique(nics.begin(), nics.end()) - nics.begin());
  return l;
}

GroupIndex GroupTable::add(std::vector<int> members) {
  groups_.emplace_back(std::move(members), graph_.shape().gpus_per_node, graph_.gpu_count());
  links_.push_back(measure_links(graph_, groups_.back()));
  return static_cast<GroupIndex>(groups_.size() - 1);
}

}  // namespace pf::models::collective
