// Faults on the cluster graph: degraded and failed links and switches, random
// links, replacement servers; routes avoid failed links and ECMP spreads over
// the survivors; a disconnected fabric or an unknown name is refused.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "core/error.h"
#include "models/network/faults.h"
#include "models/network/routing.h"
#include "tests/unit/network/shapes.h"

namespace pf::models::network {
namespace {

using models::FaultSpec;
using models::FaultTarget;
using models::TopologyKind;

// 8 servers of 4 GPUs and 4 NICs, 2 servers a leaf (fat tree, non-blocking):
// 4 leaves, 8 spines (a leaf's 8 uplinks, one per spine).
models::TopologySpec fabric() { return test::topo(TopologyKind::fat_tree, 8, 2); }
ClusterGraph healthy() { return build_cluster(test::node(4, 4), fabric()); }

FaultSpec link_fault(const std::string& src, const std::string& dst, double factor, bool failed, bool both = false) {
  FaultSpec f;
  f.target = FaultTarget::link;
  f.origin = "exp.yaml:9: faults[0]";
  f.src = src;
  f.dst = dst;
  f.bandwidth_factor = factor;
  f.failed = failed;
  f.both_directions = both;
  return f;
}

FaultSpec switch_fault(const std::string& name) {
  FaultSpec f;
  f.target = FaultTarget::switch_vertex;
  f.origin = "exp.yaml:9: faults[0]";
  f.src = name;
  f.failed = true;
  return f;
}

std::string error_of(const std::vector<FaultSpec>& faults) {
  ClusterGraph g = healthy();
  try {
    apply_faults(g, faults, fabric());
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

bool uses(const Path& p, LinkId l) {
  for (LinkId x : p.view())
    if (x == l) return true;
  return false;
}

TEST(ClusterFaults, ADegradedLinkRunsSlowerInOneDirectionOrBoth) {
  const ClusterGraph base = healthy();
  ClusterGraph g = healthy();
  const auto reach = apply_faults(g, {link_fault("leaf0", "spine1", 0.5, false)}, fabric());
  const LinkId l = g.find_link(vertex_by_name(g, "leaf0"), vertex_by_name(g, "spine1"));
  ASSERT_NE(l, kNoLink);
  EXPECT_DOUBLE_EQ(g.link(l).bandwidth_Bps, 0.5 * base.link(l).bandwidth_Bps);
  EXPECT_DOUBLE_EQ(g.link(ClusterGraph::reverse(l)).bandwidth_Bps, base.link(l).bandwidth_Bps);
  EXPECT_EQ(reach[0].links, 1);
  EXPECT_EQ(reach[0].link_ids, std::vector<LinkId>{l});
  EXPECT_FALSE(g.has_failed_links());

  ClusterGraph both = healthy();
  apply_faults(both, {link_fault("spine1", "leaf0", 0.25, false, true), link_fault("leaf0", "spine1", 0.5, false)},
               fabric());
  EXPECT_DOUBLE_EQ(both.link(l).bandwidth_Bps, 0.125 * base.link(l).bandwidth_Bps);   // factors multiply
  EXPECT_DOUBLE_EQ(both.link(ClusterGraph::reverse(l)).bandwidth_Bps, 0.25 * base.link(l).bandwidth_Bps);
}

TEST(ClusterFaults, AFailedSwitchTakesEveryPortDownAndRoutesAvoidIt) {
  ClusterGraph g = healthy();
  const auto reach = apply_faults(g, {switch_fault("spine3")}, fabric());
  const VertexId spine = vertex_by_name(g, "spine3");
  EXPECT_EQ(reach[0].links, 2 * g.count(VertexKind::leaf));
  EXPECT_EQ(reach[0].failed_links, reach[0].links);
  // Every GPU pair and many flows: a valid path that never touches spine 3.
  std::map<int, int> spines_used;
  for (int src = 0; src < g.gpu_count(); ++src) {
    for (int dst = 0; dst < g.gpu_count(); ++dst) {
      if (src == dst) continue;
      for (std::uint64_t flow = 0; flow < 8; ++flow) {
        Path p;
        route(g, src, dst, flow, p);
        for (LinkId l : p.view()) {
          ASSERT_FALSE(g.link_failed(l));
          ASSERT_NE(g.link(l).dst, spine);
          if (g.vertex(g.link(l).dst).kind == VertexKind::spine) ++spines_used[g.vertex(g.link(l).dst).index];
        }
        // Switches forward along the same route.
        for (LinkId l : p.view()) ASSERT_EQ(next_link(g, g.link(l).src, src, dst, flow), l);
      }
    }
  }
  // ECMP spreads over the 7 survivors evenly (uniform among survivors: within 15% of the mean).
  ASSERT_EQ(spines_used.size(), 7u);
  int total = 0;
  for (const auto& [spine_index, n] : spines_used) total += n;
  for (const auto& [spine_index, n] : spines_used) EXPECT_NEAR(n, total / 7.0, 0.15 * total / 7.0) << "spine" << spine_index;
}

TEST(ClusterFaults, FlowsWhoseBranchSurvivesKeepIt) {
  const ClusterGraph base = healthy();
  ClusterGraph g = healthy();
  const LinkId failed = base.leaf_spine_link(0, 2);
  apply_faults(g, {link_fault("leaf0", "spine2", 1.0, true)}, fabric());
  int moved = 0, kept = 0;
  for (int dst = 8; dst < 32; ++dst) {
    for (std::uint64_t flow = 0; flow < 16; ++flow) {
      Path before, after;
      route(base, 0, dst, flow, before);
      route(g, 0, dst, flow, after);
      if (uses(before, failed)) {
        EXPECT_FALSE(uses(after, failed));
        ++moved;
      } else {
        EXPECT_EQ(std::vector<LinkId>(before.view().begin(), before.view().end()),
                  std::vector<LinkId>(after.view().begin(), after.view().end()));
        ++kept;
      }
    }
  }
  EXPECT_GT(moved, 0);
  EXPECT_GT(kept, 6 * moved);   // one branch in 8 failed
}

TEST(ClusterFaults, SinglePathRoutingMovesToTheNextSurvivingSpine) {
  models::TopologySpec t = fabric();
  t.routing = models::Routing::single_path;
  ClusterGraph g = build_cluster(test::node(4, 4), t);
  apply_faults(g, {switch_fault("spine0")}, t);
  for (int dst = 8; dst < 32; ++dst) {
    Path p;
    route(g, 0, dst, 0, p);
    for (LinkId l : p.view()) EXPECT_FALSE(g.link_failed(l));
  }
}

TEST(ClusterFaults, RandomLinksAreSeededAndCountedExactly) {
  FaultSpec f;
  f.target = FaultTarget::random_links;
  f.origin = "exp.yaml:9: faults[0]";
  f.fraction = 0.25;
  f.bandwidth_factor = 0.5;
  f.seed = 7;
  ClusterGraph a = healthy(), b = healthy(), c = healthy();
  const auto ra = apply_faults(a, {f}, fabric());
  const auto rb = apply_faults(b, {f}, fabric());
  f.seed = 8;
  const auto rc = apply_faults(c, {f}, fabric());
  // Fabric cables: 32 NIC-leaf + 4 leaves x 8 spines = 64; a quarter is 16 cables, 32 directed links.
  EXPECT_EQ(ra[0].links, 32);
  EXPECT_EQ(ra[0].link_ids, rb[0].link_ids);
  EXPECT_NE(ra[0].link_ids, rc[0].link_ids);
  const ClusterGraph base = healthy();
  for (LinkId l : ra[0].link_ids) {
    EXPECT_DOUBLE_EQ(a.link(l).bandwidth_Bps, 0.5 * base.link(l).bandwidth_Bps);
    EXPECT_FALSE(is_intra_node(a.link(l).cls)) << "link " << l << " is not a fabric cable";
  }
}

TEST(ClusterFaults, AReplacementServerGetsItsOwnLinks) {
  FaultSpec f;
  f.target = FaultTarget::gpus;
  f.gpus = {4, 5, 6, 7, 8};   // server 1 whole, one GPU of server 2
  f.hardware = models::HardwareSpec{};
  f.hardware->node = test::node(4, 4);
  f.hardware->node.nvlink_bandwidth_gbps = 150;
  f.hardware->node.nic_bandwidth_gbps = 100;
  ClusterGraph g = healthy();
  const ClusterGraph base = healthy();
  const auto reach = apply_faults(g, {f}, fabric());
  EXPECT_EQ(reach[0].servers, 1);
  EXPECT_EQ(reach[0].gpus, 5);
  EXPECT_DOUBLE_EQ(g.link(g.gpu_nvswitch_link(5)).bandwidth_Bps, 150e9);
  EXPECT_DOUBLE_EQ(g.link(ClusterGraph::reverse(g.nic_leaf_link(5))).bandwidth_Bps, 100e9 / 8);
  EXPECT_DOUBLE_EQ(g.link(g.gpu_nvswitch_link(8)).bandwidth_Bps, base.link(base.gpu_nvswitch_link(8)).bandwidth_Bps);
}

TEST(ClusterFaults, ADisconnectedFabricOrAnUnknownNameIsRefused) {
  EXPECT_EQ(error_of({link_fault("leaf0", "spine9", 0.5, false)}),
            "exp.yaml:9: faults[0]: no vertex 'spine9' in this cluster (it has 4 leaves, 8 spines, 0 cores)");
  EXPECT_EQ(error_of({link_fault("leaf0", "leaf1", 0.5, false)}),
            "exp.yaml:9: faults[0]: no link leaf0->leaf1 in this cluster: the two are not cabled together");
  EXPECT_EQ(error_of({link_fault("nic2", "leaf0", 1.0, true)}),
            "faults: the fabric is disconnected: gpu2 is cut off (link nic2->leaf0 failed)");
  std::vector<FaultSpec> all_spines;
  for (int k = 0; k < 8; ++k) all_spines.push_back(switch_fault("spine" + std::to_string(k)));
  EXPECT_EQ(error_of(all_spines),
            "faults: the fabric is disconnected: no path is left from leaf0 to leaf1 (every spine branch between them "
            "has a failed link)");
  EXPECT_EQ(error_of({switch_fault("gpu3")}), "exp.yaml:9: faults[0]: 'gpu3' is not a switch");
}

}  // namespace
}  // namespace pf::models::network
