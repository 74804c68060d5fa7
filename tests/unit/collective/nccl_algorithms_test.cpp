// NCCL's other algorithms: NVLS-tree (NVLS inside each server, trees across
// them), CollNet (SHARP: the switches reduce) and PAT (log-depth all-gather /
// reduce-scatter with one GPU per server). Each is simulated by a pattern of
// the simulator's own (NVLS-tree and CollNet by the double binary tree's
// messages, PAT by Bruck's rounds: rounds_run.h) carrying the algorithm's
// bytes, so that on idle links the call takes NCCL's predicted time.
//
// The references re-derive NCCL 2.30.7's predictions by hand from
// src/graph/tuning.cc (constants written out again here, not read from
// models/collective/nccl_tuning.*), over the graphs nccl_cost.h describes:
// NVLS heads one per NIC-attached GPU, each channel 1/(heads + 1) of a GPU's
// NVLink and at most its NIC (twice that is the search's ceiling); CollNet
// one channel per head at its NIC's rate (at most its NVLink share).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/error.h"
#include "models/collective/algorithm_choice.h"
#include "models/collective/nccl_cost.h"
#include "tests/unit/collective/bench_fixture.h"

namespace pf {
namespace {

using namespace models::collective;

// The H100 preset as NCCL sees it: 18 x 20.6 = 370.8 GB/s of NVLink per GPU,
// eight 400G NICs at 48 GB/s, one per GPU.
constexpr double kNvlink = 370.8;
constexpr double kNic = 48.0;

int log2_floor(int n) {
  int l = 0;
  while (n >>= 1) ++l;
  return l;
}

// NVLS-tree all-reduce over `nodes` servers of 8 H100: tuning.cc's NVLS-tree
// bandwidth (nvlsEfficiency 0.85, (channels - 1)/channels, x2 for
// all-reduce; bwInter x2 on two nodes; perChMaxNVLSTreeBw 57.7 on 2 nodes,
// 45.5 beyond) and latency (NVLink 25 us + 2 log2(nodes) x network 20.9 us).
double nvls_tree_reference_us(int nodes, std::uint64_t bytes) {
  const int heads = 8, n = 8 * nodes;
  const double per_channel = kNvlink / (heads + 1);
  const double intra = per_channel * 0.85 * (heads - 1) / heads * 2;
  const double inter = std::min(kNic, 2 * per_channel) * (nodes <= 2 ? 2 : 1);
  const double bw = std::min({intra, inter, nodes <= 2 ? 57.7 : 45.5});
  const double algbw = heads * bw * n / (2.0 * (n - 1));
  return 25.0 + 2 * log2_floor(nodes) * 20.9 + static_cast<double>(bytes) / (1000 * algbw);
}

// CollNet all-reduce over `nodes` servers of 8 H100 with SHARP: one channel per
// head at min(NIC, NVLink / heads) = 46.35 GB/s; direct: GPU/NIC ratio 1, x0.85
// (Hopper), latency 2 (NVLink 3.7 + 7 x 0.4 us) + network 31 us; chain: latency
// 2 x 7 x NVLink 2.8 + network 30 us; both algorithm bandwidth = bus x 0.5.
double collnet_reference_us(Algo a, std::uint64_t bytes) {
  const double bus = 8 * std::min(kNic, kNvlink / 8) * (a == Algo::collnet_direct ? 0.85 : 1.0);
  const double lat = a == Algo::collnet_direct ? 2 * (3.7 + 7 * 0.4) + 31.0 : 2 * 7 * 2.8 + 30.0;
  return lat + static_cast<double>(bytes) / (1000 * bus * 0.5);
}

// CollNet direct all-gather / reduce-scatter over 4 servers of 8 H100, one
// NIC each: tuning.cc's ppn x min(bwIntra, bwInter x 0.9) with the CollNet
// graph's 46.35 GB/s per head, kept as algorithm bandwidth; the all-reduce's
// direct latency.
double collnet_gather_reference_us(std::uint64_t bytes) {
  const double per_head = std::min(kNic, kNvlink / 8);
  const double bw = 8 * std::min(per_head, per_head * 0.9);
  return 2 * (3.7 + 7 * 0.4) + 31.0 + static_cast<double>(bytes) / (1000 * bw);
}

// PAT all-gather / reduce-scatter over n servers of one H100 and one NIC:
// two channels of 24 GB/s, x0.75, no conversion to algorithm bandwidth;
// latency: base 8 us + log2(n) x (network tree Simple 14 us / 3.5) + n x 2.8 us.
double pat_reference_us(int n, std::uint64_t bytes) {
  return 8.0 + log2_floor(n) * (14.0 / 3.5) + n * 2.8 + static_cast<double>(bytes) / (1000 * kNic * 0.75);
}

config::ClusterSpec h100(int nodes, const std::string& mode, const std::vector<std::string>& more = {}) {
  std::vector<std::string> o{"topology.nodes=" + std::to_string(nodes), "simulation.network=" + mode};
  o.insert(o.end(), more.begin(), more.end());
  return test::nccl_preset("h100-sxm-80gb", "rail-optimized", o);
}

// One GPU and one NIC per server; adaptive routing so that the rounds' cross-leaf
// messages do not collide on ECMP-hashed uplinks (that loss is the network's, not NCCL's).
config::ClusterSpec one_gpu_servers(int nodes, const std::string& mode, const std::vector<std::string>& more = {}) {
  std::vector<std::string> o{"hardware.node.gpus_per_node=1", "hardware.node.nics_per_node=1",
                             "topology.routing=adaptive"};
  o.insert(o.end(), more.begin(), more.end());
  return h100(nodes, mode, o);
}

double all_reduce_busbw(double us, std::uint64_t bytes, int n) {
  return static_cast<double>(bytes) / (us * 1e3) * 2.0 * (n - 1) / n;
}

Algo chosen(const config::ClusterSpec& spec, Op op, const std::vector<int>& members, std::uint64_t bytes) {
  const auto b = test::bench(spec);
  GroupTable table(b.graph());
  table.add(members);
  Request r;
  r.op = op;
  r.bytes = bytes;
  return nccl_algo(r, table.group(0), table.links(0), nccl_params(spec.hardware.nccl, spec.simulation));
}

std::vector<int> first(int n) {
  std::vector<int> v(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = i;
  return v;
}

class NcclAlgorithms : public ::testing::TestWithParam<std::string> {};

TEST_P(NcclAlgorithms, NvlsTreeTakesNcclsPredictedTimeOnIdleLinks) {
  for (int nodes : {2, 4}) {
    const auto b = test::bench(h100(nodes, GetParam()));
    for (std::uint64_t s = 8; s <= (8ull << 30); s *= 64) {
      const double want = nvls_tree_reference_us(nodes, s);
      const double got = test::run_us(b, Op::all_reduce, Algo::nvls_tree, 8 * nodes, s);
      EXPECT_NEAR(got / want, 1.0, 0.05) << nodes << " servers, " << s << " B: NCCL " << want << " us, simulated " << got;
    }
  }
}

TEST_P(NcclAlgorithms, CollNetTakesNcclsPredictedTimeOnIdleLinks) {
  const auto b = test::bench(h100(4, GetParam(), {"hardware.nccl.collnet=true"}));
  for (Algo a : {Algo::collnet_direct, Algo::collnet_chain}) {
    for (std::uint64_t s = 8; s <= (8ull << 30); s *= 64) {
      const double want = collnet_reference_us(a, s);
      const double got = test::run_us(b, Op::all_reduce, a, 32, s);
      EXPECT_NEAR(got / want, 1.0, 0.05) << to_string(a) << ", " << s << " B: NCCL " << want << " us, simulated " << got;
    }
  }
}

TEST_P(NcclAlgorithms, CollNetGathersTakeNcclsPredictedTimeOnIdleLinks) {
  const auto b = test::bench(h100(4, GetParam(), {"hardware.nccl.collnet=true"}));
  for (Op op : {Op::all_gather, Op::reduce_scatter}) {
    for (std::uint64_t s = 1 << 10; s <= (8ull << 30); s *= 64) {
      const double want = collnet_gather_reference_us(s);
      const double got = test::run_us(b, op, Algo::collnet_direct, 32, s);
      EXPECT_NEAR(got / want, 1.0, 0.05) << to_string(op) << ", " << s << " B: NCCL " << want << " us, simulated " << got;
    }
  }
}

TEST_P(NcclAlgorithms, PatRoundsTakeNcclsPredictedTimeOnIdleLinks) {
  for (int n : {8, 48, 64}) {  // 48: Bruck's rounds with a short last round
    const auto b = test::bench(one_gpu_servers(n, GetParam()));
    for (Op op : {Op::all_gather, Op::reduce_scatter}) {
      for (std::uint64_t s = 1 << 10; s <= (1ull << 30); s *= 32) {
        const double want = pat_reference_us(n, s);
        const double got = test::run_us(b, op, Algo::pat, n, s);
        EXPECT_NEAR(got / want, 1.0, 0.05)
            << to_string(op) << " over " << n << " servers, " << s << " B: NCCL " << want << " us, simulated " << got;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, NcclAlgorithms, ::testing::Values("analytical", "packet"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// NVIDIA/nccl#1221 (8 H100 and eight 400G NICs per server, NCCL 2.19.3,
// all_reduce_perf 4-8 GiB): NVLS on lifts the bus bandwidth of one and two
// servers from 330 to 430 GB/s and leaves 4 and more at 320 (the ring's).
TEST(NvlsTree, BeatsTheRingOnTwoServersAndNotOnFour) {
  const std::uint64_t s = 8ull << 30;
  const auto two = test::bench(h100(2, "analytical"));
  const double nvls_two = all_reduce_busbw(test::run_us(two, Op::all_reduce, Algo::automatic, 16, s), s, 16);
  const double ring_two = all_reduce_busbw(test::run_us(two, Op::all_reduce, Algo::ring, 16, s), s, 16);
  EXPECT_NEAR(nvls_two / 430, 1.0, 0.10) << nvls_two << " GB/s";
  EXPECT_GT(nvls_two / ring_two, 1.15) << "measured 430 / 330 = 1.30";
  EXPECT_EQ(chosen(h100(2, "analytical"), Op::all_reduce, first(16), s), Algo::nvls_tree);

  const auto four = test::bench(h100(4, "analytical"));
  const double auto_four = all_reduce_busbw(test::run_us(four, Op::all_reduce, Algo::automatic, 32, s), s, 32);
  const double ring_four = all_reduce_busbw(test::run_us(four, Op::all_reduce, Algo::ring, 32, s), s, 32);
  EXPECT_NEAR(auto_four / ring_four, 1.0, 0.03) << auto_four << " against the ring's " << ring_four;
  // Off (NCCL_NVLS_ENABLE=0): never.
  EXPECT_NE(chosen(h100(2, "analytical", {"hardware.nccl.nvls=false"}), Op::all_reduce, first(16), s), Algo::nvls_tree);
}

TEST(Pat, NcclPicksItForSmallGathersOverManyServersAndTheRingForLargeOnes) {
  const auto spec = one_gpu_servers(64, "analytical");
  EXPECT_EQ(chosen(spec, Op::all_gather, first(64), 1 << 20), Algo::pat);
  EXPECT_EQ(chosen(spec, Op::reduce_scatter, first(64), 1 << 20), Algo::pat);
  EXPECT_EQ(chosen(spec, Op::all_gather, first(64), 1ull << 30), Algo::ring);
  // PAT's log-depth rounds against the ring's 63 steps at 1 MiB, simulated.
  const auto b = test::bench(spec);
  EXPECT_LT(test::run_us(b, Op::all_gather, Algo::automatic, 64, 1 << 20),
            0.8 * test::run_us(b, Op::all_gather, Algo::ring, 64, 1 << 20));
  // Off (NCCL_PAT_ENABLE=0), or more than one GPU per server: never.
  EXPECT_EQ(chosen(one_gpu_servers(64, "analytical", {"hardware.nccl.pat=false"}), Op::all_gather, first(64), 1 << 20),
            Algo::ring);
  EXPECT_EQ(chosen(h100(8, "analytical"), Op::all_gather, first(64), 1 << 20), Algo::ring);
}

TEST(CollNet, GathersOnlyWithANicPerGpuAndThenForSmallSizes) {
  const std::uint64_t small = 256 << 10;
  EXPECT_EQ(chosen(h100(4, "analytical"), Op::all_gather, first(32), small), Algo::ring);
  const auto sharp = h100(4, "analytical", {"hardware.nccl.collnet=true"});
  for (Op op : {Op::all_gather, Op::reduce_scatter}) {
    EXPECT_EQ(chosen(sharp, op, first(32), small), Algo::collnet_direct) << to_string(op);
    // One latency across servers (44 us) against the ring's 31 steps (55 us, LL).
    const auto b = test::bench(sharp);
    EXPECT_LT(test::run_us(b, op, Algo::automatic, 32, small), 0.9 * test::run_us(b, op, Algo::ring, 32, small));
  }
  // Two GPUs per NIC: NCCL needs one each (1:1 GPU:NIC), so never, and forcing it is an error.
  const auto shared = h100(4, "analytical", {"hardware.nccl.collnet=true", "hardware.node.nics_per_node=4"});
  EXPECT_EQ(chosen(shared, Op::all_gather, first(32), small), Algo::ring);
  try {
    test::run_us(test::bench(shared), Op::all_gather, Algo::collnet_direct, 32, small);
    ADD_FAILURE() << "collnet_direct all-gather with two GPUs per NIC ran";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("at most one GPU of the group per NIC"), std::string::npos) << e.what();
  }
}

TEST(CollNet, OnlyWhereTheFabricReducesAndThenForSmallAllReduces) {
  const std::uint64_t small = 256 << 10;
  EXPECT_NE(chosen(h100(4, "analytical"), Op::all_reduce, first(32), small), Algo::collnet_direct);
  const auto sharp = h100(4, "analytical", {"hardware.nccl.collnet=true"});
  const Algo a = chosen(sharp, Op::all_reduce, first(32), small);
  EXPECT_TRUE(a == Algo::collnet_direct || a == Algo::collnet_chain) << to_string(a);
  // Constant latency across servers against the ring's 62 steps.
  const auto b = test::bench(sharp);
  EXPECT_LT(test::run_us(b, Op::all_reduce, Algo::automatic, 32, small),
            0.5 * test::run_us(b, Op::all_reduce, Algo::ring, 32, small));
  // At large sizes NCCL rates CollNet chain at the tree's bandwidth (one
  // channel per head, x0.5 to algorithm bandwidth) and direct 0.85 of it on
  // Hopper: the tree's messages carry 1 and 1/0.85 of the payload.
  GroupTable table(b.graph());
  table.add(first(32));
  Request r;
  r.op = Op::all_reduce;
  r.bytes = 1ull << 30;
  const NcclParams params = nccl_params(sharp.hardware.nccl, sharp.simulation);
  EXPECT_NEAR(step_cost(r, Algo::collnet_chain, table.group(0), table.links(0), params).wire_factor, 1.0, 1e-6);
  EXPECT_NEAR(step_cost(r, Algo::collnet_direct, table.group(0), table.links(0), params).wire_factor, 1 / 0.85, 1e-6);
}

TEST(NcclAlgorithms, ForcingOneWhereNcclCannotRunItIsAConfigError) {
  const auto b = test::bench(h100(2, "analytical"));
  EXPECT_THROW(test::run_us(b, Op::all_reduce, Algo::collnet_direct, 16, 1 << 20), ConfigError);  // no SHARP
  EXPECT_THROW(test::run_us(b, Op::all_reduce, Algo::nvls_tree, 8, 1 << 20), ConfigError);        // one server
  EXPECT_THROW(test::run_us(b, Op::all_gather, Algo::pat, 16, 1 << 20), ConfigError);             // 8 per server
  EXPECT_THROW(test::run_us(b, Op::all_reduce, Algo::pat, 16, 1 << 20), ConfigError);
  const auto links = test::bench(h100(2, "analytical", {"simulation.collective_model=links"}));
  EXPECT_THROW(test::run_us(links, Op::all_reduce, Algo::nvls_tree, 16, 1 << 20), ConfigError);
  EXPECT_EQ(parse_algo("NVLSTree"), Algo::nvls_tree);
  EXPECT_EQ(parse_algo("CollnetDirect"), Algo::collnet_direct);
  EXPECT_EQ(parse_algo("PAT"), Algo::pat);
  EXPECT_FALSE(parse_algo("nvlstrees"));
}

}  // namespace
}  // namespace pf
