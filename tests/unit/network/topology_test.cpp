// Shapes of the cluster graph: vertex and link counts worked out by hand for a
// small case of each kind, wiring invariants, bandwidths and latencies.
#include <gtest/gtest.h>

#include <map>
#include <type_traits>
#include <utility>

#include "core/error.h"
#include "models/network/topology.h"
#include "tests/unit/network/shapes.h"

namespace pf::models::network {
namespace {

using models::TopologyKind;
using test::node;
using test::topo;

constexpr double kNic = 200e9 / 8;  // 200 Gb/s in bytes/s

int count_class(const ClusterGraph& g, LinkClass cls) {
  int n = 0;
  for (const Link& l : g.links()) n += l.cls == cls ? 1 : 0;
  return n;
}

double out_bandwidth(const ClusterGraph& g, VertexId v, LinkClass cls) {
  double sum = 0;
  for (LinkId l : g.out_links(v)) sum += g.link(l).cls == cls ? g.link(l).bandwidth_Bps : 0;
  return sum;
}

TEST(PartitionClusterGraph, SingleSwitchCounts) {
  // 3 servers x 4 GPUs, 2 NICs each: 12 GPUs + 3 NVSwitches + 6 NICs + 1 leaf.
  const ClusterGraph g = build_cluster(node(4, 2), topo(TopologyKind::single_switch, 3));
  EXPECT_EQ(g.vertex_count(), 22);
  // cables: 12 NVLink + 12 GPU-NIC + 6 NIC-leaf = 30, two links each.
  EXPECT_EQ(g.link_count(), 60);
  EXPECT_EQ(g.count(VertexKind::leaf), 1);
  EXPECT_EQ(g.count(VertexKind::spine), 0);
  EXPECT_EQ(g.count(VertexKind::core), 0);
  EXPECT_EQ(count_class(g, LinkClass::leaf_to_nic), 6);
  // Two GPUs share each NIC, so the attach runs at PCIe speed (32 GB/s).
  EXPECT_DOUBLE_EQ(g.link(g.gpu_nic_link(0)).bandwidth_Bps, 32e9);
}

TEST(PartitionClusterGraph, FatTreeCounts) {
  // 4 servers x 2 GPUs x 2 NICs, 2 servers per leaf: 2 leaves with 4
  // downlinks each, hence 4 uplinks each to 4 spines.
  const ClusterGraph g = build_cluster(node(2, 2), topo(TopologyKind::fat_tree, 4, 2));
  EXPECT_EQ(g.count(VertexKind::gpu), 8);
  EXPECT_EQ(g.count(VertexKind::nvswitch), 4);
  EXPECT_EQ(g.count(VertexKind::nic), 8);
  EXPECT_EQ(g.count(VertexKind::leaf), 2);
  EXPECT_EQ(g.count(VertexKind::spine), 4);
  EXPECT_EQ(g.vertex_count(), 26);
  // cables: 8 NVLink + 8 attach + 8 NIC-leaf + 2*4 leaf-spine = 32.
  EXPECT_EQ(g.link_count(), 64);
  // Both NICs of server 1 sit on leaf 0, those of server 2 on leaf 1.
  EXPECT_EQ(g.leaf_of_nic(2), 0);
  EXPECT_EQ(g.leaf_of_nic(3), 0);
  EXPECT_EQ(g.leaf_of_nic(4), 1);
  EXPECT_DOUBLE_EQ(g.link(g.leaf_spine_link(0, 0)).bandwidth_Bps, kNic);
}

TEST(PartitionClusterGraph, RailOptimizedCounts) {
  // 4 servers x 4 GPUs x 4 NICs, 2 servers per leaf: 2 groups x 4 rails = 8
  // leaves of 2 downlinks, so 2 spines.
  const ClusterGraph g = build_cluster(node(4, 4), topo(TopologyKind::rail_optimized, 4, 2));
  EXPECT_EQ(g.count(VertexKind::leaf), 8);
  EXPECT_EQ(g.count(VertexKind::spine), 2);
  EXPECT_EQ(g.vertex_count(), 16 + 4 + 16 + 8 + 2);
  // cables: 16 NVLink + 16 attach + 16 NIC-leaf + 8*2 leaf-spine = 64.
  EXPECT_EQ(g.link_count(), 128);
  // NIC i of each server goes to rail i: NIC 1 of servers 0 and 1 share leaf 1,
  // NIC 1 of server 2 is on the next group's rail-1 leaf (4*1 + 1).
  EXPECT_EQ(g.leaf_of_nic(1), 1);
  EXPECT_EQ(g.leaf_of_nic(4 + 1), 1);
  EXPECT_EQ(g.leaf_of_nic(8 + 1), 5);
  // One NIC per GPU: the attach runs at NIC line rate, not PCIe.
  EXPECT_DOUBLE_EQ(g.link(g.gpu_nic_link(0)).bandwidth_Bps, kNic);
}

TEST(PartitionClusterGraph, PodsAddCoreTier) {
  // 8 servers x 2 GPUs x 1 NIC, 2 per leaf, 4 per pod: 4 leaves in 2 pods of 2.
  // Leaf: 2 downlinks -> 2 spines per pod. Spine: 2 leaf downlinks at 2:1 -> 1
  // uplink, so 2 core groups of 1 core.
  auto t = topo(TopologyKind::fat_tree, 8, 2, 4);
  t.pod_oversubscription = 2.0;
  const ClusterGraph g = build_cluster(node(2, 1), t);
  EXPECT_EQ(g.shape().pods, 2);
  EXPECT_EQ(g.count(VertexKind::spine), 4);
  EXPECT_EQ(g.count(VertexKind::core), 2);
  EXPECT_EQ(g.vertex_count(), 16 + 8 + 8 + 4 + 4 + 2);
  // cables: 16 NVLink + 16 attach + 8 NIC-leaf + 4*2 leaf-spine + 4*1 spine-core = 52.
  EXPECT_EQ(g.link_count(), 104);
  EXPECT_EQ(g.vertex(g.vertex_of(VertexKind::leaf, 3)).pod, 1);
  // Spine k of each pod reaches core group k only.
  for (LinkId l : g.out_links(g.vertex_of(VertexKind::spine, g.spine_of(1, 1)))) {
    if (g.link(l).cls == LinkClass::spine_to_core) {
      EXPECT_EQ(g.vertex(g.link(l).dst).index, g.core_of(1, 0));
    }
  }
}

TEST(PartitionClusterGraph, SingleGpuServersHaveNoNvswitch) {
  const ClusterGraph g = build_cluster(node(1, 1), topo(TopologyKind::single_switch, 2));
  EXPECT_EQ(g.count(VertexKind::nvswitch), 0);
  EXPECT_EQ(g.vertex_count(), 5);   // 2 GPUs, 2 NICs, 1 leaf
  EXPECT_EQ(g.link_count(), 8);     // 2 attach + 2 NIC-leaf cables
}

TEST(PartitionClusterGraph, LinksPairUpAndAgreeWithBoostGraph) {
  auto t = topo(TopologyKind::rail_optimized, 12, 2, 4);
  const ClusterGraph g = build_cluster(node(8, 8), t);
  ASSERT_EQ(static_cast<int>(boost::num_vertices(g.graph())), g.vertex_count());
  ASSERT_EQ(static_cast<int>(boost::num_edges(g.graph())), g.link_count());
  for (LinkId l = 0; l < g.link_count(); ++l) {
    const Link& a = g.link(l);
    const Link& b = g.link(ClusterGraph::reverse(l));
    EXPECT_EQ(a.src, b.dst);
    EXPECT_EQ(a.dst, b.src);
    EXPECT_EQ(a.bandwidth_Bps, b.bandwidth_Bps);
  }
  int seen = 0;
  for (auto [e, end] = boost::edges(g.graph()); e != end; ++e) {
    const Link& bundled = g.graph()[*e];
    EXPECT_EQ(static_cast<VertexId>(boost::source(*e, g.graph())), bundled.src);
    EXPECT_EQ(static_cast<VertexId>(boost::target(*e, g.graph())), bundled.dst);
    ++seen;
  }
  EXPECT_EQ(seen, g.link_count());
  int out_total = 0;
  for (VertexId v = 0; v < g.vertex_count(); ++v) {
    for (LinkId l : g.out_links(v)) EXPECT_EQ(g.link(l).src, v);
    out_total += static_cast<int>(g.out_links(v).size());
  }
  EXPECT_EQ(out_total, g.link_count());
}

TEST(PartitionClusterGraph, LinkClassesMatchEndpointKinds) {
  const ClusterGraph g = build_cluster(node(8, 8), topo(TopologyKind::rail_optimized, 12, 2, 4));
  const std::map<LinkClass, std::pair<VertexKind, VertexKind>> ends{
      {LinkClass::gpu_to_nvswitch, {VertexKind::gpu, VertexKind::nvswitch}},
      {LinkClass::gpu_to_nic, {VertexKind::gpu, VertexKind::nic}},
      {LinkClass::nic_to_leaf, {VertexKind::nic, VertexKind::leaf}},
      {LinkClass::leaf_to_spine, {VertexKind::leaf, VertexKind::spine}},
      {LinkClass::spine_to_core, {VertexKind::spine, VertexKind::core}},
  };
  for (LinkId l = 0; l < g.link_count(); l += 2) {  // even ids point up
    const Link& link = g.link(l);
    ASSERT_TRUE(ends.count(link.cls)) << to_string(link.cls);
    EXPECT_EQ(g.vertex(link.src).kind, ends.at(link.cls).first);
    EXPECT_EQ(g.vertex(link.dst).kind, ends.at(link.cls).second);
    const int a = g.vertex(link.src).node, b = g.vertex(link.dst).node;
    EXPECT_EQ(is_intra_node(link.cls), a >= 0 && a == b);
  }
}

TEST(PartitionClusterGraph, LatencyAttribution) {
  const ClusterGraph g = build_cluster(node(8, 8), topo(TopologyKind::fat_tree, 4, 2));
  using core::SimTime;
  const LinkId nv = g.gpu_nvswitch_link(3);
  EXPECT_EQ(g.link(nv).latency + g.link(ClusterGraph::reverse(nv)).latency, SimTime::from_us(0.7));
  EXPECT_EQ(g.link(g.gpu_nic_link(3)).latency, SimTime::zero());
  // nic_latency_us (2.0) is end to end: half at each NIC.
  EXPECT_EQ(g.link(ClusterGraph::reverse(g.gpu_nic_link(3))).latency, SimTime::from_us(1.0));
  EXPECT_EQ(g.link(g.nic_leaf_link(3)).latency, SimTime::from_us(0.5 + 1.0));
  EXPECT_EQ(g.link(ClusterGraph::reverse(g.nic_leaf_link(3))).latency, SimTime::from_us(0.5 + 0.6));
  EXPECT_EQ(g.link(g.leaf_spine_link(1, 0)).latency, SimTime::from_us(0.5 + 0.6));
  EXPECT_EQ(g.link(ClusterGraph::reverse(g.leaf_spine_link(1, 0))).latency, SimTime::from_us(0.5 + 0.6));
}

TEST(PartitionClusterGraph, GpusUseNicsByRatio) {
  // 8 GPUs on 2 NICs: GPUs 0-3 on NIC 0, 4-7 on NIC 1 (GPU i uses NIC i*nics/gpus).
  const ClusterGraph g = build_cluster(node(8, 2), topo(TopologyKind::fat_tree, 2, 1));
  for (int i = 0; i < 8; ++i) EXPECT_EQ(g.nic_of_gpu(8 + i), 2 + i / 4);
}

TEST(PartitionClusterGraph, OversubscriptionHalvesUplinkCapacity) {
  auto t = topo(TopologyKind::fat_tree, 16, 4);
  const ClusterGraph full = build_cluster(node(8, 8), t);
  t.leaf_oversubscription = 2.0;
  const ClusterGraph half = build_cluster(node(8, 8), t);
  const VertexId leaf = full.first(VertexKind::leaf);
  const double down = out_bandwidth(full, leaf, LinkClass::leaf_to_nic);
  EXPECT_DOUBLE_EQ(down, 32 * kNic);  // 4 servers x 8 NICs
  EXPECT_DOUBLE_EQ(out_bandwidth(full, leaf, LinkClass::leaf_to_spine), down);
  EXPECT_DOUBLE_EQ(out_bandwidth(half, leaf, LinkClass::leaf_to_spine), down / 2);
  EXPECT_EQ(half.shape().spines_per_pod, 16);  // 32 ports at 2:1, at NIC speed
}

TEST(PartitionClusterGraph, Llama3ClusterIsExpressible) {
  // Llama 3 (Dubey et al. 2024, section 3.3.1): 24K GPUs, two 8-GPU servers per
  // ToR, 3,072-GPU pods at full bisection, 1:7 oversubscribed above the pods.
  auto t = topo(TopologyKind::fat_tree, 3072, 2, 384);
  t.pod_oversubscription = 7.0;
  auto n = node(8, 8);
  n.nic_bandwidth_gbps = 400;
  const ClusterGraph g = build_cluster(n, t);
  EXPECT_EQ(g.gpu_count(), 24576);
  EXPECT_EQ(g.shape().pods, 8);
  EXPECT_EQ(g.count(VertexKind::leaf), 1536);
  const VertexId spine = g.first(VertexKind::spine);
  const double down = out_bandwidth(g, spine, LinkClass::spine_to_leaf);
  const double up = out_bandwidth(g, spine, LinkClass::spine_to_core);
  EXPECT_NEAR(down / up, 7.0, 1e-9);
  // Inside a pod the leaf uplinks carry everything the servers can send.
  const VertexId leaf = g.first(VertexKind::leaf);
  EXPECT_DOUBLE_EQ(out_bandwidth(g, leaf, LinkClass::leaf_to_spine), 16 * 400e9 / 8);
}

TEST(PartitionClusterGraph, SeleneIsExpressible) {
  // Selene (Megatron-LM, Narayanan et al. 2021): DGX A100 servers, 8 HDR NICs
  // each, rail-optimized, three switch tiers. 560 servers in 20-server units,
  // 140 servers per pod.
  const ClusterGraph g = build_cluster(node(8, 8), topo(TopologyKind::rail_optimized, 560, 20, 140));
  EXPECT_EQ(g.gpu_count(), 4480);
  EXPECT_EQ(g.shape().pods, 4);
  EXPECT_EQ(g.count(VertexKind::leaf), 28 * 8);
  EXPECT_GT(g.count(VertexKind::core), 0);
}

TEST(PartitionClusterGraph, MovesWithoutCopying) {
  static_assert(!std::is_copy_constructible_v<ClusterGraph>);
  ClusterGraph a = build_cluster(node(8, 8), topo(TopologyKind::fat_tree, 4, 2));
  const int links = a.link_count();
  ClusterGraph b = std::move(a);
  EXPECT_EQ(b.link_count(), links);
  EXPECT_EQ(static_cast<int>(boost::num_edges(b.graph())), links);
}

TEST(PartitionClusterGraph, RejectsBadInput) {
  auto t = topo(TopologyKind::fat_tree, 8, 2, 3);  // a pod of 3 servers cannot hold 2-server leaves
  EXPECT_THROW(build_cluster(node(8, 8), t), ConfigError);
  EXPECT_THROW(build_cluster(node(8, 0), topo(TopologyKind::fat_tree, 8, 2)), ConfigError);
  auto zero = topo(TopologyKind::single_switch, 0);
  EXPECT_THROW(build_cluster(node(8, 8), zero), ConfigError);
  auto bad_ratio = topo(TopologyKind::fat_tree, 8, 2);
  bad_ratio.leaf_oversubscription = 0;
  EXPECT_THROW(build_cluster(node(8, 8), bad_ratio), ConfigError);
}

}  // namespace
}  // namespace pf::models::network
