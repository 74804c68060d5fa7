// Scale figures, printed rather than tightly asserted: build time and memory at
// 1,024 and 16,384 GPUs, partition time, and each strategy's cut and balance
// on a 128-server rail-optimized cluster, 16 servers per leaf.
#include <gtest/gtest.h>
#include <malloc.h>

#include <chrono>
#include <cstdio>

#include "models/network/lp_partition.h"
#include "models/network/routing.h"
#include "tests/unit/network/shapes.h"

namespace pf::models::network {
namespace {

using partition::RankMapping;
using partition::Strategy;

using models::TopologyKind;
using test::node;
using test::topo;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::size_t heap_in_use() { return mallinfo2().uordblks; }

void build_and_print(const char* label, const models::TopologySpec& t, int expect_vertices, int expect_links) {
  const std::size_t heap0 = heap_in_use();
  const auto t0 = std::chrono::steady_clock::now();
  const ClusterGraph g = build_cluster(node(8, 8), t);
  const double build_s = seconds_since(t0);
  const double heap_mib = static_cast<double>(heap_in_use() - heap0) / (1 << 20);
  std::printf("[figures] %-28s %6d GPUs: %6d vertices, %7d links, build %.4f s, heap %.1f MiB (estimate %.1f MiB)\n",
              label, g.gpu_count(), g.vertex_count(), g.link_count(), build_s, heap_mib,
              static_cast<double>(g.memory_bytes()) / (1 << 20));
  EXPECT_EQ(g.vertex_count(), expect_vertices);
  EXPECT_EQ(g.link_count(), expect_links);
  EXPECT_LT(build_s, 5.0);  // the aim is well under a second; this only catches a blow-up

  Path p;
  const auto r0 = std::chrono::steady_clock::now();
  std::uint64_t sink = 0;
  constexpr int kRoutes = 1000000;
  for (int i = 0; i < kRoutes; ++i) {
    const int src = static_cast<int>((i * 2654435761u) % static_cast<unsigned>(g.gpu_count()));
    const int dst = static_cast<int>((i * 40503u + 7) % static_cast<unsigned>(g.gpu_count()));
    route(g, src, dst, static_cast<std::uint64_t>(i), p);
    sink += static_cast<std::uint64_t>(p.hops);
  }
  std::printf("[figures] %-28s route: %.1f ns per call (%llu hops in all)\n", label,
              seconds_since(r0) / kRoutes * 1e9, static_cast<unsigned long long>(sink));

  for (int ranks : {16, 64}) {
    const auto p0 = std::chrono::steady_clock::now();
    const RankMapping m = partition_cluster(g, ranks, Strategy::metis);
    std::printf("[figures] %-28s metis on %d ranks: %.3f s, %s\n", label, ranks, seconds_since(p0),
                summarize(m.report).c_str());
  }
}

TEST(PartitionScale, BuildTimeAndMemory) {
  // 128 servers, 16 per leaf, one pod: 1024 GPUs + 128 NVSwitches + 1024 NICs
  // + 8 groups x 8 rails = 64 leaves + 16 spines; cables 3 x 1024 + 64 x 16.
  build_and_print("rail_optimized (io/config/README.md)", topo(TopologyKind::rail_optimized, 128, 16), 1024 + 128 + 1024 + 64 + 16,
                  2 * (3 * 1024 + 64 * 16));
  // 2048 servers: 16384 + 2048 + 16384 + 128 x 8 leaves + 16 spines;
  // cables 3 x 16384 + 1024 x 16.
  build_and_print("rail_optimized", topo(TopologyKind::rail_optimized, 2048, 16),
                  16384 + 2048 + 16384 + 1024 + 16, 2 * (3 * 16384 + 1024 * 16));
  // Three tiers: pods of 256 servers (16 leaves of 128 ports), 128 spines per
  // pod, 16 uplinks per spine -> 8 pods, 1024 spines, 2048 cores.
  build_and_print("fat_tree 3-tier", topo(TopologyKind::fat_tree, 2048, 16, 256),
                  16384 + 2048 + 16384 + 128 + 1024 + 2048, 2 * (3 * 16384 + 128 * 128 + 1024 * 16));
}

TEST(PartitionScale, StrategiesOnSpecExample) {
  const ClusterGraph g = build_cluster(node(8, 8), topo(TopologyKind::rail_optimized, 128, 16));
  for (int ranks : {2, 4}) {
    for (Strategy s : {Strategy::block, Strategy::round_robin, Strategy::metis}) {
      const RankMapping m = partition_cluster(g, ranks, s);
      std::printf("[figures] 128-server rail_optimized, %-11s %s\n", to_string(s), summarize(m.report).c_str());
      EXPECT_GT(m.report.cut_links, 0);
      EXPECT_GE(m.report.imbalance, 1.0);
    }
  }
}

}  // namespace
}  // namespace pf::models::network
