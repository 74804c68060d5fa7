// Routes: valid, loop-free, shortest (checked against a breadth-first search
// of the Boost graph), ECMP spread and determinism, single_path, alpha-beta view.
#include <gtest/gtest.h>

#include <boost/graph/breadth_first_search.hpp>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "models/network/routing.h"
#include "tests/unit/network/shapes.h"

namespace pf::models {
// gtest prints parameters in test names; without this a kind shows as raw bytes.
inline void PrintTo(TopologyKind kind, std::ostream* os) { *os << static_cast<int>(kind); }
}  // namespace pf::models

namespace pf::models::network {
namespace {

using models::TopologyKind;
using test::node;
using test::topo;

// Hop distances from `src` over every directed link (GPUs may be transit too).
std::vector<int> bfs_hops(const ClusterGraph& g, VertexId src) {
  std::vector<int> dist(static_cast<std::size_t>(g.vertex_count()), 0);
  boost::breadth_first_search(
      g.graph(), static_cast<std::size_t>(src),
      boost::visitor(boost::make_bfs_visitor(boost::record_distances(dist.data(), boost::on_tree_edge()))));
  return dist;
}

// Every path: starts at src, each link continues the last, ends at dst, no vertex twice.
void expect_valid(const ClusterGraph& g, int src, int dst, const Path& p) {
  ASSERT_GT(p.hops, 0);
  std::set<VertexId> visited{static_cast<VertexId>(src)};
  VertexId at = src;
  for (LinkId l : p.view()) {
    ASSERT_GE(l, 0);
    ASSERT_LT(l, g.link_count());
    ASSERT_EQ(g.link(l).src, at);
    at = g.link(l).dst;
    ASSERT_TRUE(visited.insert(at).second) << "loop at vertex " << at;
  }
  EXPECT_EQ(at, dst);
}

int expected_hops(const ClusterGraph& g, int src, int dst) {
  if (g.node_of_gpu(src) == g.node_of_gpu(dst)) return 2;
  const int sl = g.leaf_of_nic(g.nic_of_gpu(src));
  const int dl = g.leaf_of_nic(g.nic_of_gpu(dst));
  if (sl == dl) return 4;
  return g.pod_of_leaf(sl) == g.pod_of_leaf(dl) ? 6 : 8;
}

class PartitionRoutingShapes : public ::testing::TestWithParam<models::TopologyKind> {};

// Checks every ordered GPU pair and tallies paths by hop count.
std::map<int, int> check_all_routes(const ClusterGraph& g) {
  std::map<int, int> by_hops;
  Path p;
  for (int src = 0; src < g.gpu_count(); ++src) {
    const std::vector<int> dist = bfs_hops(g, src);
    for (int dst = 0; dst < g.gpu_count(); ++dst) {
      if (src == dst) continue;
      for (std::uint64_t flow : {0ULL, 7ULL, 123456789ULL}) {
        route(g, src, dst, flow, p);
        expect_valid(g, src, dst, p);
        EXPECT_EQ(p.hops, expected_hops(g, src, dst));
        EXPECT_EQ(p.hops, dist[static_cast<std::size_t>(dst)]) << src << " -> " << dst;
      }
      ++by_hops[p.hops];
    }
  }
  return by_hops;
}

TEST_P(PartitionRoutingShapes, EveryRouteIsAShortestValidPath) {
  // 12 servers, 2 per leaf, 4 per pod: three pods, so every hop class occurs.
  const auto kind = GetParam();
  const ClusterGraph g = build_cluster(node(4, 4), topo(kind, 12, 2, kind == TopologyKind::single_switch ? 0 : 4));
  std::map<int, int> by_hops = check_all_routes(g);
  EXPECT_GT(by_hops[2], 0);
  EXPECT_GT(by_hops[4], 0);
  if (kind != TopologyKind::single_switch) {
    EXPECT_GT(by_hops[6], 0);
    EXPECT_GT(by_hops[8], 0);
  }
}

TEST_P(PartitionRoutingShapes, PartlyFilledLeavesAndPods) {
  // 7 servers, 2 per leaf, 4 per pod: the last leaf and the last pod are not full.
  const auto kind = GetParam();
  const ClusterGraph g = build_cluster(node(2, 2), topo(kind, 7, 2, kind == TopologyKind::single_switch ? 0 : 4));
  check_all_routes(g);
}

std::string kind_name(const ::testing::TestParamInfo<TopologyKind>& info) {
  switch (info.param) {
    case TopologyKind::single_switch: return "single_switch";
    case TopologyKind::fat_tree: return "fat_tree";
    case TopologyKind::rail_optimized: return "rail_optimized";
  }
  return "unknown";
}

INSTANTIATE_TEST_SUITE_P(Partition, PartitionRoutingShapes,
                         ::testing::Values(TopologyKind::single_switch, TopologyKind::fat_tree,
                                           TopologyKind::rail_optimized),
                         kind_name);

TEST(PartitionRouting, SameGpuIsEmptyPath) {
  const ClusterGraph g = build_cluster(node(8, 8), topo(TopologyKind::fat_tree, 4, 2));
  Path p;
  route(g, 5, 5, 0, p);
  EXPECT_EQ(p.hops, 0);
}

TEST(PartitionRouting, EcmpSpreadsFlowsEvenlyOverSpines) {
  // Fat tree, 4 servers x 8 NICs per leaf: 32 uplinks -> 32 spines.
  const ClusterGraph g = build_cluster(node(8, 8), topo(TopologyKind::fat_tree, 8, 4));
  const int spines = g.shape().spines_per_pod;
  ASSERT_EQ(spines, 32);
  ASSERT_EQ(equal_cost_paths(g, 0, 40), spines);
  std::map<LinkId, int> uses;
  constexpr int kFlows = 32000;
  Path p;
  for (int f = 0; f < kFlows; ++f) {
    route(g, 0, 40, static_cast<std::uint64_t>(f), p);
    ++uses[p.links[2]];  // the leaf -> spine hop
  }
  ASSERT_EQ(static_cast<int>(uses.size()), spines);
  for (const auto& [link, n] : uses) {
    EXPECT_EQ(g.link(link).cls, LinkClass::leaf_to_spine);
    EXPECT_NEAR(n, kFlows / spines, 0.15 * kFlows / spines);  // ~5 sigma for 1000 expected
  }
}

TEST(PartitionRouting, EcmpSpreadsCrossPodFlowsOverSpinesAndCores) {
  auto t = topo(TopologyKind::fat_tree, 8, 2, 4);  // 2 pods; 2 spines/pod, 2 uplinks/spine
  const ClusterGraph g = build_cluster(node(2, 1), t);
  ASSERT_EQ(equal_cost_paths(g, 0, 15), 4);
  std::map<std::pair<LinkId, LinkId>, int> uses;
  constexpr int kFlows = 8000;
  Path p;
  for (int f = 0; f < kFlows; ++f) {
    route(g, 0, 15, static_cast<std::uint64_t>(f), p);
    ASSERT_EQ(p.hops, 8);
    ++uses[{p.links[2], p.links[3]}];  // leaf -> spine, spine -> core
  }
  ASSERT_EQ(uses.size(), 4u);
  for (const auto& [links, n] : uses) EXPECT_NEAR(n, kFlows / 4, 0.1 * kFlows / 4);
}

TEST(PartitionRouting, SameFlowSamePathAcrossBuilds) {
  const auto t = topo(TopologyKind::rail_optimized, 16, 2, 8);
  const ClusterGraph a = build_cluster(node(8, 8), t);
  const ClusterGraph b = build_cluster(node(8, 8), t);
  Path pa, pb;
  for (int flow = 0; flow < 50; ++flow) {
    route(a, 3, 120, static_cast<std::uint64_t>(flow), pa);
    route(b, 3, 120, static_cast<std::uint64_t>(flow), pb);
    EXPECT_EQ(pa.hops, pb.hops);
    EXPECT_EQ(pa.links, pb.links);
    route(a, 3, 120, static_cast<std::uint64_t>(flow), pb);
    EXPECT_EQ(pa.links, pb.links);
  }
  // The hash itself is a pure function of (src, dst, flow).
  EXPECT_EQ(ecmp_hash(3, 120, 9), ecmp_hash(3, 120, 9));
  EXPECT_NE(ecmp_hash(3, 120, 9), ecmp_hash(120, 3, 9));
}

TEST(PartitionRouting, SinglePathIgnoresFlowAndSpreadsDestinations) {
  auto t = topo(TopologyKind::fat_tree, 8, 4);
  t.routing = models::Routing::single_path;
  const ClusterGraph g = build_cluster(node(8, 8), t);  // 32 ports per leaf, 32 spines
  Path first, p;
  route(g, 0, 40, 0, first);
  for (int f = 1; f < 100; ++f) {
    route(g, 0, 40, static_cast<std::uint64_t>(f), p);
    EXPECT_EQ(p.links, first.links);
  }
  // D-mod-k: the 32 GPUs under leaf 1 are reached through 32 different spines.
  std::set<LinkId> uplinks;
  for (int dst = 32; dst < 64; ++dst) {
    route(g, 0, dst, 0, p);
    uplinks.insert(p.links[2]);
  }
  EXPECT_EQ(uplinks.size(), 32u);
}

TEST(PartitionRouting, NextLinkWalksTheRoute) {
  const ClusterGraph g = build_cluster(node(4, 4), topo(TopologyKind::rail_optimized, 12, 2, 4));
  Path p;
  route(g, 1, 46, 99, p);
  VertexId at = 1;
  for (LinkId expected : p.view()) {
    EXPECT_EQ(next_link(g, at, 1, 46, 99), expected);
    at = g.link(expected).dst;
  }
  EXPECT_EQ(at, 46);
  EXPECT_EQ(next_link(g, at, 1, 46, 99), kNoLink);
}

// next_link computes the hop from the vertex's place on the path; the
// definition is the path itself: the link of route() leaving `at`, kNoLink
// when none does. Every vertex, for GPU pairs in and across servers, leaves,
// pods and routing modes.
TEST(PartitionRouting, NextLinkIsTheRoutesLinkLeavingEveryVertex) {
  const auto by_scan = [](const ClusterGraph& g, VertexId at, int src, int dst, std::uint64_t flow) {
    Path p;
    route(g, src, dst, flow, p);
    for (LinkId l : p.view())
      if (g.link(l).src == at) return l;
    return kNoLink;
  };
  struct Case {
    models::NodeSpec node;
    models::TopologySpec topo;
  };
  std::vector<Case> cases = {{node(4, 4), topo(TopologyKind::rail_optimized, 12, 2, 4)},
                             {node(8, 8), topo(TopologyKind::rail_optimized, 6, 2)},
                             {node(2, 1), topo(TopologyKind::fat_tree, 8, 2, 4)},
                             {node(4, 2), topo(TopologyKind::fat_tree, 8, 2)}};
  Case single = cases[0];
  single.topo.routing = models::Routing::single_path;
  cases.push_back(single);
  int checked = 0;
  for (const Case& c : cases) {
    const ClusterGraph g = build_cluster(c.node, c.topo);
    for (int src = 0; src < g.gpu_count(); ++src)
      for (int dst = 0; dst < g.gpu_count(); dst += 3)
        for (std::uint64_t flow : {0ull, 7ull, 12345ull})
          for (VertexId at = 0; at < static_cast<VertexId>(g.vertex_count()); ++at, ++checked)
            ASSERT_EQ(next_link(g, at, src, dst, flow), by_scan(g, at, src, dst, flow))
                << "vertex " << at << " src " << src << " dst " << dst << " flow " << flow;
  }
  EXPECT_GT(checked, 100000);
}

TEST(PartitionRouting, PathStatsMatchClosedForms) {
  using core::SimTime;
  auto t = topo(TopologyKind::fat_tree, 8, 2, 4);
  const ClusterGraph g = build_cluster(node(2, 1), t);
  Path p;
  route(g, 0, 1, 0, p);  // same server
  PathStats st = path_stats(g, p);
  EXPECT_EQ(st.latency, SimTime::from_us(0.7));
  EXPECT_DOUBLE_EQ(st.bottleneck_Bps, 300e9);

  route(g, 0, 2, 0, p);  // same leaf: two NICs, two cables, one switch
  st = path_stats(g, p);
  EXPECT_EQ(st.latency, SimTime::from_us(2.0 + 2 * 0.5 + 0.6));  // nic_latency_us once, end to end
  EXPECT_DOUBLE_EQ(st.bottleneck_Bps, 200e9 / 8);

  route(g, 0, 15, 3, p);  // across pods: six cables, five switches
  st = path_stats(g, p);
  EXPECT_EQ(st.hops, 8);
  EXPECT_EQ(st.latency, SimTime::from_us(2.0 + 6 * 0.5 + 5 * 0.6));
  // 1 MB at 25 GB/s = 40 us, plus the latency.
  EXPECT_EQ(transfer_time(st, 1e6), st.latency + SimTime::from_us(40.0));
}

}  // namespace
}  // namespace pf::models::network
