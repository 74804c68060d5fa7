// Link loads from a traffic matrix: the ECMP shortcut must equal the average
// over every equal-cost branch, enumerated the slow way with route_via.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "models/network/routing.h"
#include "models/network/traffic_load.h"
#include "tests/unit/network/shapes.h"

namespace pf::models::network {
namespace {

using models::TopologyKind;
using test::node;
using test::topo;

std::vector<double> brute_force_loads(const ClusterGraph& g, const std::vector<GpuTraffic>& traffic) {
  std::vector<double> load(static_cast<std::size_t>(g.link_count()), 0.0);
  const ClusterShape& s = g.shape();
  Path p;
  for (const GpuTraffic& t : traffic) {
    const int spines = std::max(1, s.spines_per_pod);
    const int cores = std::max(1, s.spine_uplinks);
    for (int k = 0; k < spines; ++k) {
      for (int c = 0; c < cores; ++c) {
        route_via(g, t.src_gpu, t.dst_gpu, {k, c}, p);
        for (LinkId l : p.view()) load[static_cast<std::size_t>(l)] += t.bytes / (spines * cores);
      }
    }
  }
  return load;
}

TEST(PartitionTrafficLoad, EcmpSplitEqualsAverageOverBranches) {
  const ClusterGraph g = build_cluster(node(4, 4), topo(TopologyKind::rail_optimized, 12, 2, 4));
  std::vector<GpuTraffic> traffic;
  for (int src = 0; src < g.gpu_count(); src += 3) {
    for (int dst = 1; dst < g.gpu_count(); dst += 5) traffic.push_back({src, dst, 1000.0 + src * 7 + dst});
  }
  const std::vector<double> fast = link_loads(g, traffic);
  const std::vector<double> slow = brute_force_loads(g, traffic);
  ASSERT_EQ(fast.size(), slow.size());
  for (std::size_t l = 0; l < fast.size(); ++l) EXPECT_NEAR(fast[l], slow[l], 1e-6 * (1 + slow[l])) << "link " << l;
}

TEST(PartitionTrafficLoad, SinglePathPutsAllBytesOnOnePath) {
  auto t = topo(TopologyKind::fat_tree, 8, 2);
  t.routing = models::Routing::single_path;
  const ClusterGraph g = build_cluster(node(8, 8), t);
  const std::vector<GpuTraffic> traffic{{0, 63, 5e6}};
  const std::vector<double> load = link_loads(g, traffic);
  Path p;
  route(g, 0, 63, 0, p);
  double total = 0;
  for (double x : load) total += x;
  EXPECT_DOUBLE_EQ(total, 5e6 * p.hops);
  for (LinkId l : p.view()) EXPECT_DOUBLE_EQ(load[static_cast<std::size_t>(l)], 5e6);
}

TEST(PartitionTrafficLoad, RejectsUnknownGpus) {
  const ClusterGraph g = build_cluster(node(8, 8), topo(TopologyKind::single_switch, 2));
  const std::vector<GpuTraffic> bad{{0, 16, 1.0}};
  EXPECT_THROW(link_loads(g, bad), SimulationError);
}

}  // namespace
}  // namespace pf::models::network
