#include "models/network/traffic_load.h"

#include <string>

#include "core/error.h"
#include "models/network/routing.h"

namespace pf::models::network {
namespace {

void check(const ClusterGraph& g, const GpuTraffic& t) {
  if (t.src_gpu < 0 || t.src_gpu >= g.gpu_count() || t.dst_gpu < 0 || t.dst_gpu >= g.gpu_count() || !(t.bytes >= 0)) {
    throw SimulationError("partition traffic: expected GPUs in [0, " + std::to_string(g.gpu_count()) +
                          ") and bytes >= 0, found " + std::to_string(t.src_gpu) + " -> " +
                          std::to_string(t.dst_gpu) + " with " + std::to_string(t.bytes) + " bytes");
  }
}

// Under ECMP every spine of a pod (and every core of a group) is equally
// likely, so instead of walking S*U branches per pair we total what leaves and
// enters each leaf and pod, then spread those totals evenly over the uplinks.
class EcmpSpreader {
 public:
  explicit EcmpSpreader(const ClusterGraph& g)
      : g_(g), leaf_out_(static_cast<std::size_t>(g.shape().leaves)), leaf_in_(leaf_out_.size()),
        pod_out_(static_cast<std::size_t>(g.shape().pods)), pod_in_(pod_out_.size()) {}

  void add(const GpuTraffic& t, std::vector<double>& load) {
    const int snic = g_.nic_of_gpu(t.src_gpu);
    const int dnic = g_.nic_of_gpu(t.dst_gpu);
    load[idx(g_.gpu_nic_link(t.src_gpu))] += t.bytes;
    load[idx(g_.nic_leaf_link(snic))] += t.bytes;
    load[idx(ClusterGraph::reverse(g_.nic_leaf_link(dnic)))] += t.bytes;
    load[idx(ClusterGraph::reverse(g_.gpu_nic_link(t.dst_gpu)))] += t.bytes;
    const int sl = g_.leaf_of_nic(snic);
    const int dl = g_.leaf_of_nic(dnic);
    if (sl == dl) return;
    leaf_out_[idx(sl)] += t.bytes;
    leaf_in_[idx(dl)] += t.bytes;
    const int sp = g_.pod_of_leaf(sl);
    const int dp = g_.pod_of_leaf(dl);
    if (sp == dp) return;
    pod_out_[idx(sp)] += t.bytes;
    pod_in_[idx(dp)] += t.bytes;
  }

  void spread(std::vector<double>& load) const {
    const ClusterShape& s = g_.shape();
    for (int l = 0; l < s.leaves; ++l) {
      for (int k = 0; k < s.spines_per_pod; ++k) {
        const LinkId up = g_.leaf_spine_link(l, k);
        load[idx(up)] += leaf_out_[idx(l)] / s.spines_per_pod;
        load[idx(ClusterGraph::reverse(up))] += leaf_in_[idx(l)] / s.spines_per_pod;
      }
    }
    const double branches = static_cast<double>(s.spines_per_pod) * s.spine_uplinks;
    for (int p = 0; p < s.pods && s.spine_uplinks > 0; ++p) {
      for (int k = 0; k < s.spines_per_pod; ++k) {
        for (int c = 0; c < s.spine_uplinks; ++c) {
          const LinkId up = g_.spine_core_link(g_.spine_of(p, k), c);
          load[idx(up)] += pod_out_[idx(p)] / branches;
          load[idx(ClusterGraph::reverse(up))] += pod_in_[idx(p)] / branches;
        }
      }
    }
  }

 private:
  static std::size_t idx(int i) { return static_cast<std::size_t>(i); }
  const ClusterGraph& g_;
  std::vector<double> leaf_out_, leaf_in_, pod_out_, pod_in_;
};

}  // namespace

std::vector<double> link_loads(const ClusterGraph& g, std::span<const GpuTraffic> traffic) {
  std::vector<double> load(static_cast<std::size_t>(g.link_count()), 0.0);
  const bool ecmp = g.shape().routing != models::Routing::single_path;  // adaptive spreads at least as well
  EcmpSpreader spreader(g);
  Path path;
  for (const GpuTraffic& t : traffic) {
    check(g, t);
    if (t.src_gpu == t.dst_gpu || t.bytes == 0) continue;
    if (ecmp && g.node_of_gpu(t.src_gpu) != g.node_of_gpu(t.dst_gpu)) {
      spreader.add(t, load);
      continue;
    }
    route(g, t.src_gpu, t.dst_gpu, 0, path);
    for (LinkId l : path.view()) load[static_cast<std::size_t>(l)] += t.bytes;
  }
  if (ecmp) spreader.spread(load);
  return load;
}

}  // namespace pf::models::network
