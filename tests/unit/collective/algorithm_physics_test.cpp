// Physics of the other algorithms: closed forms on idle links, packet vs
// analytical agreement where nothing is congested, linear growth in bytes,
// NIC bandwidth in a hierarchical all-reduce, and oversubscription.
#include <gtest/gtest.h>

#include "models/collective/algorithm_choice.h"
#include "tests/unit/collective/bench_fixture.h"

namespace pf {
namespace {

using models::collective::Algo;
using models::collective::Op;

std::vector<std::string> one_gpu_servers(int n, const std::string& mode) {
  return {"hardware.node.gpus_per_node=1", "hardware.node.nics_per_node=1", "topology.nodes=" + std::to_string(n),
          "simulation.network=" + mode};
}

class ClosedForm : public ::testing::TestWithParam<std::string> {};

TEST_P(ClosedForm, SendRecvIsOneTransferPerGpu) {
  const auto b = test::bench(test::preset("a100-sxm-80gb", "single-switch", one_gpu_servers(8, GetParam())));
  const test::AlphaBeta ab = test::alpha_beta(b.graph(), 0, 1);
  const double s = 256 << 20;
  EXPECT_NEAR(test::run_us(b, Op::send_recv, Algo::automatic, 8, 256 << 20) * 1e-6, ab.alpha_s + s / ab.bandwidth_Bps,
              1e-9);
}

TEST_P(ClosedForm, BroadcastIsAPipelinedChain) {
  const int n = 16;
  const auto b = test::bench(test::preset("a100-sxm-80gb", "single-switch", one_gpu_servers(n, GetParam())));
  const test::AlphaBeta ab = test::alpha_beta(b.graph(), 0, 1);
  const std::uint64_t s = 1ull << 30;
  const auto piece = static_cast<double>(models::collective::pipeline_piece(s, n - 1, 1 << 20));
  // The last GPU gets the last piece after n-1 hops of latency, the whole
  // buffer's time on one port, and n-2 more pieces of store-and-forward.
  const double formula = (n - 1) * ab.alpha_s + (static_cast<double>(s) + (n - 2) * piece) / ab.bandwidth_Bps;
  EXPECT_NEAR(test::run_us(b, Op::broadcast, Algo::automatic, n, s) * 1e-6 / formula, 1.0, 0.01);
}

TEST_P(ClosedForm, AllToAllOnANonBlockingSwitch) {
  const int n = 16;
  const auto b = test::bench(test::preset("a100-sxm-80gb", "single-switch", one_gpu_servers(n, GetParam())));
  const test::AlphaBeta ab = test::alpha_beta(b.graph(), 0, 1);
  const double s = 1 << 30;
  const double formula = ab.alpha_s + (n - 1.0) / n * s / ab.bandwidth_Bps;
  EXPECT_NEAR(test::run_us(b, Op::all_to_all, Algo::automatic, n, 1 << 30) * 1e-6 / formula, 1.0, 0.01);
}

INSTANTIATE_TEST_SUITE_P(Modes, ClosedForm, ::testing::Values("packet", "analytical"));

// The preset's 4 rail-optimised servers of 8 GPUs (one leaf group).
run::CollectiveBench rails32(const std::string& mode, std::vector<std::string> more = {}) {
  more.push_back("topology.nodes=4");
  more.push_back("simulation.network=" + mode);
  return test::bench(test::preset("a100-sxm-80gb", "rail-optimized", more));
}

struct Case {
  Op op;
  Algo algo;
};
const std::vector<Case> kUncongested{{Op::all_reduce, Algo::ring},   {Op::all_reduce, Algo::tree},
                                     {Op::all_reduce, Algo::hierarchical}, {Op::all_gather, Algo::ring},
                                     {Op::reduce_scatter, Algo::ring}, {Op::broadcast, Algo::ring},
                                     {Op::send_recv, Algo::direct}};

TEST(ModeAgreement, PacketAndAnalyticalAgreeWithin3PercentWhenUncongested) {
  const auto packet = rails32("packet");
  const auto analytical = rails32("analytical");
  for (const Case& c : kUncongested) {
    for (std::uint64_t s : {16ull << 20, 256ull << 20}) {
      const double p = test::run_us(packet, c.op, c.algo, 32, s);
      const double a = test::run_us(analytical, c.op, c.algo, 32, s);
      EXPECT_NEAR(p / a, 1.0, 0.03) << to_string(c.op) << "/" << to_string(c.algo) << " " << s;
    }
  }
}

class Linearity : public ::testing::TestWithParam<std::string> {};

TEST_P(Linearity, DoublingLargeMessagesDoublesTheTime) {
  const auto b = rails32(GetParam());
  std::vector<Case> cases = kUncongested;
  cases.push_back({Op::all_to_all, Algo::direct});
  for (const Case& c : cases) {
    const double t1 = test::run_us(b, c.op, c.algo, 32, 512ull << 20);
    const double t2 = test::run_us(b, c.op, c.algo, 32, 1ull << 30);
    EXPECT_NEAR(t2 / t1, 2.0, 0.04) << to_string(c.op) << "/" << to_string(c.algo);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, Linearity, ::testing::Values("packet", "analytical"));

class Hierarchical : public ::testing::TestWithParam<std::string> {};

// The inter-server phase is what NIC bandwidth buys: measured against the
// same all-reduce with NICs so fast that only their latency is left.
TEST_P(Hierarchical, DoublingNicBandwidthHalvesTheInterServerPart) {
  const auto nic = [&](const std::string& gbps) {
    return test::run_us(rails32(GetParam(), {"hardware.node.nic_bandwidth_gbps=" + gbps}), Op::all_reduce,
                        Algo::hierarchical, 32, 1ull << 30);
  };
  const double unbounded = nic("1e7");
  const double at_200 = nic("200") - unbounded;
  const double at_400 = nic("400") - unbounded;
  EXPECT_GT(at_200, 0.5 * nic("200"));  // the inter-server part dominates here
  EXPECT_NEAR(at_200 / at_400, 2.0, 0.04);
}

INSTANTIATE_TEST_SUITE_P(Modes, Hierarchical, ::testing::Values("packet", "analytical"));

// One 8-GPU server per leaf, so every byte between servers climbs to a spine;
// destination routing spreads the flows evenly over the spines.
double all_to_all_busbw(const std::string& oversubscription) {
  const auto b = test::bench(test::preset(
      "a100-sxm-80gb", "fat-tree-3tier",
      {"topology.nodes=4", "topology.nodes_per_leaf=1", "topology.pod_nodes=0", "topology.routing=single_path",
       "topology.leaf_oversubscription=" + oversubscription}));
  const std::uint64_t s = 1ull << 30;
  const double t = test::run_us(b, Op::all_to_all, Algo::automatic, 32, s) * 1e-6;
  return static_cast<double>(s) / t * models::collective::bus_factor(Op::all_to_all, 32);
}

TEST(Oversubscription, TwoToOneHalvesAllToAllBusBandwidth) {
  EXPECT_NEAR(all_to_all_busbw("2.0") / all_to_all_busbw("1.0"), 0.5, 0.5 * 0.05);
}

}  // namespace
}  // namespace pf
