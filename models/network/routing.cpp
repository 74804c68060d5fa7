#include "models/network/routing.h"

#include <algorithm>
#include <limits>

#include "core/mix64.h"

namespace pf::models::network {
namespace {

// Maps 32 random bits onto [0, n) without the bias of a modulo (Lemire).
int scale(std::uint64_t bits32, int n) { return static_cast<int>((bits32 * static_cast<std::uint64_t>(n)) >> 32); }

// Destination-based choice: the destination NIC's port number on its leaf.
UplinkChoice destination_choice(const ClusterGraph& g, int dst_gpu) {
  const ClusterShape& s = g.shape();
  const int dnic = g.nic_of_gpu(dst_gpu);
  const int node_in_group = dnic / s.nics_per_node % s.nodes_per_leaf;
  const int port = s.rail_optimized() ? node_in_group : node_in_group * s.nics_per_node + dnic % s.nics_per_node;
  UplinkChoice c;
  c.spine = s.spines_per_pod > 0 ? port % s.spines_per_pod : 0;
  if (s.spine_uplinks > 0) {
    const int leaf_in_pod = g.leaf_of_nic(dnic) % s.leaves_per_pod;
    c.core = (leaf_in_pod + port / s.spines_per_pod) % s.spine_uplinks;
  }
  return c;
}

// The n-th equal-cost branch, spine-major (cores vary fastest).
UplinkChoice branch(const ClusterShape& s, int n, bool cross_pod) {
  const int cores = cross_pod ? std::max(1, s.spine_uplinks) : 1;
  return UplinkChoice{n / cores, cross_pod ? n % cores : 0};
}

// Routing around failed links. ECMP hashes over the surviving equal-cost
// branches only: rejection sampling (rehash until the branch is up) keeps the
// choice uniform among survivors and leaves every flow whose first choice
// survives where it was. single_path (D-mod-k) moves to the next surviving
// branch in order, as a subnet manager re-sweeping its tables does.
UplinkChoice surviving_choice(const ClusterGraph& g, int src_gpu, int dst_gpu, std::uint64_t h, UplinkChoice first) {
  const int sl = g.leaf_of_nic(g.nic_of_gpu(src_gpu));
  const int dl = g.leaf_of_nic(g.nic_of_gpu(dst_gpu));
  if (sl == dl || branch_up(g, sl, dl, first)) return first;
  const ClusterShape& s = g.shape();
  const bool cross = g.pod_of_leaf(sl) != g.pod_of_leaf(dl);
  const int branches = s.spines_per_pod * (cross ? std::max(1, s.spine_uplinks) : 1);
  if (s.routing != models::Routing::single_path) {
    for (int tries = 0; tries < 64; ++tries) {
      h = core::mix64(h);
      const UplinkChoice c = branch(s, scale(h >> 32, branches), cross);
      if (branch_up(g, sl, dl, c)) return c;
    }
  }
  const int start = first.spine * (cross ? std::max(1, s.spine_uplinks) : 1) + first.core;
  for (int i = 1; i < branches; ++i) {
    const UplinkChoice c = branch(s, (start + i) % branches, cross);
    if (branch_up(g, sl, dl, c)) return c;
  }
  return first;  // disconnected: apply_faults refuses such a fabric before any route is asked for
}

}  // namespace

bool branch_up(const ClusterGraph& g, int sl, int dl, UplinkChoice c) {
  if (g.link_failed(g.leaf_spine_link(sl, c.spine))) return false;
  if (g.link_failed(ClusterGraph::reverse(g.leaf_spine_link(dl, c.spine)))) return false;
  const int sp = g.pod_of_leaf(sl);
  const int dp = g.pod_of_leaf(dl);
  if (sp == dp) return true;
  return !g.link_failed(g.spine_core_link(g.spine_of(sp, c.spine), c.core)) &&
         !g.link_failed(ClusterGraph::reverse(g.spine_core_link(g.spine_of(dp, c.spine), c.core)));
}

std::uint64_t ecmp_hash(int src_gpu, int dst_gpu, std::uint64_t flow) {
  const std::uint64_t pair = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src_gpu)) << 32) |
                             static_cast<std::uint32_t>(dst_gpu);
  return core::mix64(flow ^ core::mix64(pair));
}

int equal_cost_paths(const ClusterGraph& g, int src_gpu, int dst_gpu) {
  if (src_gpu == dst_gpu || g.node_of_gpu(src_gpu) == g.node_of_gpu(dst_gpu)) return 1;
  const int sl = g.leaf_of_nic(g.nic_of_gpu(src_gpu));
  const int dl = g.leaf_of_nic(g.nic_of_gpu(dst_gpu));
  if (sl == dl) return 1;
  const ClusterShape& s = g.shape();
  return g.pod_of_leaf(sl) == g.pod_of_leaf(dl) ? s.spines_per_pod : s.spines_per_pod * s.spine_uplinks;
}

UplinkChoice choose_uplinks(const ClusterGraph& g, int src_gpu, int dst_gpu, std::uint64_t flow) {
  const ClusterShape& s = g.shape();
  const bool hashed = s.routing != models::Routing::single_path;
  const std::uint64_t h = hashed || g.has_failed_links() ? ecmp_hash(src_gpu, dst_gpu, flow) : 0;
  UplinkChoice c;
  if (!hashed) {
    c = destination_choice(g, dst_gpu);
  } else {
    if (s.spines_per_pod > 0) c.spine = scale(h >> 32, s.spines_per_pod);
    if (s.spine_uplinks > 0) c.core = scale(h & 0xffffffffULL, s.spine_uplinks);
  }
  if (!g.has_failed_links() || s.spines_per_pod == 0 || g.node_of_gpu(src_gpu) == g.node_of_gpu(dst_gpu)) return c;
  return surviving_choice(g, src_gpu, dst_gpu, h, c);
}

void route_via(const ClusterGraph& g, int src_gpu, int dst_gpu, UplinkChoice choice, Path& out) {
  out.hops = 0;
  if (src_gpu == dst_gpu) return;
  if (g.node_of_gpu(src_gpu) == g.node_of_gpu(dst_gpu)) {
    out.push(g.gpu_nvswitch_link(src_gpu));
    out.push(ClusterGraph::reverse(g.gpu_nvswitch_link(dst_gpu)));
    return;
  }
  const int snic = g.nic_of_gpu(src_gpu);
  const int dnic = g.nic_of_gpu(dst_gpu);
  const int sl = g.leaf_of_nic(snic);
  const int dl = g.leaf_of_nic(dnic);
  out.push(g.gpu_nic_link(src_gpu));
  out.push(g.nic_leaf_link(snic));
  if (sl != dl) {
    const int sp = g.pod_of_leaf(sl);
    const int dp = g.pod_of_leaf(dl);
    out.push(g.leaf_spine_link(sl, choice.spine));
    if (sp != dp) {
      out.push(g.spine_core_link(g.spine_of(sp, choice.spine), choice.core));
      out.push(ClusterGraph::reverse(g.spine_core_link(g.spine_of(dp, choice.spine), choice.core)));
    }
    out.push(ClusterGraph::reverse(g.leaf_spine_link(dl, choice.spine)));
  }
  out.push(ClusterGraph::reverse(g.nic_leaf_link(dnic)));
  out.push(ClusterGraph::reverse(g.gpu_nic_link(dst_gpu)));
}

void route(const ClusterGraph& g, int src_gpu, int dst_gpu, std::uint64_t flow, Path& out) {
  route_via(g, src_gpu, dst_gpu, choose_uplinks(g, src_gpu, dst_gpu, flow), out);
}

// The hop out of `at` computed from `at`'s place on the path (route_via's
// order) instead of building the path and scanning it: a chunk asks at every
// hop, and the scan read up to eight links' records. The branch above the
// leaves is hashed only at the hops that need it. A candidate link is returned
// only if it leaves `at`, so a vertex off the path still gets kNoLink.
LinkId next_link(const ClusterGraph& g, VertexId at, int src_gpu, int dst_gpu, std::uint64_t flow) {
  if (src_gpu == dst_gpu) return kNoLink;
  const Vertex& v = g.vertex(at);
  const auto leaving = [&](LinkId l) { return g.link(l).src == at ? l : kNoLink; };
  if (g.node_of_gpu(src_gpu) == g.node_of_gpu(dst_gpu)) {
    if (v.kind == VertexKind::gpu) return leaving(g.gpu_nvswitch_link(src_gpu));
    if (v.kind == VertexKind::nvswitch) return leaving(ClusterGraph::reverse(g.gpu_nvswitch_link(dst_gpu)));
    return kNoLink;
  }
  const int snic = g.nic_of_gpu(src_gpu);
  const int dnic = g.nic_of_gpu(dst_gpu);
  const int sl = g.leaf_of_nic(snic);
  const int dl = g.leaf_of_nic(dnic);
  switch (v.kind) {
    case VertexKind::gpu: return leaving(g.gpu_nic_link(src_gpu));
    case VertexKind::nic:
      if (v.index == snic) return leaving(g.nic_leaf_link(snic));
      return v.index == dnic ? leaving(ClusterGraph::reverse(g.gpu_nic_link(dst_gpu))) : kNoLink;
    case VertexKind::leaf:
      if (v.index == dl) return leaving(ClusterGraph::reverse(g.nic_leaf_link(dnic)));
      if (v.index != sl) return kNoLink;
      return leaving(g.leaf_spine_link(sl, choose_uplinks(g, src_gpu, dst_gpu, flow).spine));
    case VertexKind::nvswitch: return kNoLink;
    case VertexKind::spine:
    case VertexKind::core: break;
  }
  if (sl == dl) return kNoLink;
  const UplinkChoice c = choose_uplinks(g, src_gpu, dst_gpu, flow);
  const int sp = g.pod_of_leaf(sl);
  const int dp = g.pod_of_leaf(dl);
  const LinkId down_to_leaf = ClusterGraph::reverse(g.leaf_spine_link(dl, c.spine));
  if (sp == dp) return v.kind == VertexKind::spine ? leaving(down_to_leaf) : kNoLink;
  const LinkId down_to_spine = ClusterGraph::reverse(g.spine_core_link(g.spine_of(dp, c.spine), c.core));
  if (v.kind == VertexKind::core) return leaving(down_to_spine);
  const LinkId up = g.spine_core_link(g.spine_of(sp, c.spine), c.core);
  return g.link(up).src == at ? up : leaving(down_to_leaf);
}

PathStats path_stats(const ClusterGraph& g, const Path& path) {
  PathStats st;
  st.hops = path.hops;
  st.bottleneck_Bps = std::numeric_limits<double>::infinity();
  for (LinkId l : path.view()) {
    const Link& link = g.link(l);
    if (link.bandwidth_Bps < st.bottleneck_Bps) st.bottleneck_Bps = link.bandwidth_Bps;
    st.latency += link.latency;
  }
  return st;
}

core::SimTime transfer_time(const PathStats& stats, double bytes) {
  if (bytes <= 0 || stats.hops == 0) return stats.latency;
  return stats.latency + core::SimTime::from_seconds(bytes / stats.bottleneck_Bps);
}

}  // namespace pf::models::network
