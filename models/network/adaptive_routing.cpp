#include "models/network/adaptive_routing.h"

#include "core/mix64.h"
#include "models/network/routing.h"

namespace pf::models::network {
namespace {

// Among `count` candidate ports (candidate(i) -> link, or kNoLink when that
// branch is not usable), the one free earliest; ties to the first after `start`.
template <class Candidate>
LinkId least_loaded(const LinkPorts& ports, int count, int start, core::SimTime now, Candidate candidate) {
  LinkId best = kNoLink;
  core::SimTime best_free = core::SimTime::infinity();
  for (int i = 0; i < count; ++i) {
    const LinkId l = candidate((start + i) % count);
    if (l == kNoLink) continue;
    const core::SimTime free = ports.free_at(l) < now ? now : ports.free_at(l);
    if (free < best_free) {
      best = l;
      best_free = free;
    }
  }
  return best;
}

int tie_start(int src_gpu, int dst_gpu, int count) {
  const std::uint64_t pair = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src_gpu)) << 32) |
                             static_cast<std::uint32_t>(dst_gpu);
  return static_cast<int>(core::mix64(pair) % static_cast<std::uint64_t>(count));
}

// Whether spine k still reaches the destination leaf dl from leaf sl (through
// some core when the pods differ).
bool spine_reaches(const ClusterGraph& g, int sl, int k, int dl) {
  const int cores = g.pod_of_leaf(sl) == g.pod_of_leaf(dl) ? 1 : g.shape().spine_uplinks;
  for (int c = 0; c < cores; ++c)
    if (branch_up(g, sl, dl, UplinkChoice{k, c})) return true;
  return false;
}

}  // namespace

LinkId adaptive_next_link(const ClusterGraph& g, const LinkPorts& ports, VertexId at, int src_gpu,
                          int dst_gpu, core::SimTime now) {
  const Vertex& v = g.vertex(at);
  const int dnic = g.nic_of_gpu(dst_gpu);
  const int dl = g.leaf_of_nic(dnic);
  const int dp = g.pod_of_leaf(dl);
  const ClusterShape& s = g.shape();
  switch (v.kind) {
    case VertexKind::nic:
      return v.index == dnic ? ClusterGraph::reverse(g.gpu_nic_link(dst_gpu)) : g.nic_leaf_link(v.index);
    case VertexKind::leaf: {
      if (v.index == dl) return ClusterGraph::reverse(g.nic_leaf_link(dnic));
      return least_loaded(ports, s.spines_per_pod, tie_start(src_gpu, dst_gpu, s.spines_per_pod), now, [&](int k) {
        return spine_reaches(g, v.index, k, dl) ? g.leaf_spine_link(v.index, k) : kNoLink;
      });
    }
    case VertexKind::spine: {
      const int sp = v.index / s.spines_per_pod;
      const int k = v.index % s.spines_per_pod;
      if (sp == dp) return ClusterGraph::reverse(g.leaf_spine_link(dl, k));
      return least_loaded(ports, s.spine_uplinks, tie_start(src_gpu, dst_gpu, s.spine_uplinks), now, [&](int c) {
        const LinkId up = g.spine_core_link(v.index, c);
        const bool down_ok = !g.link_failed(ClusterGraph::reverse(g.spine_core_link(g.spine_of(dp, k), c)));
        return !g.link_failed(up) && down_ok ? up : kNoLink;
      });
    }
    case VertexKind::core: {
      const int k = v.index / s.spine_uplinks;
      const int c = v.index % s.spine_uplinks;
      return ClusterGraph::reverse(g.spine_core_link(g.spine_of(dp, k), c));
    }
    case VertexKind::nvswitch: return ClusterGraph::reverse(g.gpu_nvswitch_link(dst_gpu));
    case VertexKind::gpu: break;
  }
  return kNoLink;
}

}  // namespace pf::models::network
