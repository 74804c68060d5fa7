// Ring collectives on idle links against their closed forms (DESIGN, Testing):
// all-reduce 2(n-1)/n S/B + 2(n-1) alpha, all-gather and reduce-scatter
// (n-1)/n S/B + (n-1) alpha, with B and alpha from the preset's link model.
#include <gtest/gtest.h>

#include "tests/unit/collective/bench_fixture.h"

namespace pf {
namespace {

using models::NetworkMode;
using models::collective::Algo;
using models::collective::Op;

std::string mode_name(const ::testing::TestParamInfo<NetworkMode>& p) {
  return p.param == NetworkMode::packet ? "packet" : "analytical";
}
std::string mode_key(NetworkMode m) { return m == NetworkMode::packet ? "packet" : "analytical"; }

class RingClosedForm : public ::testing::TestWithParam<NetworkMode> {};

// single-switch preset, one GPU and one NIC per server: every hop crosses the switch.
TEST_P(RingClosedForm, AllReduceAcrossServersFrom8MBTo8GB) {
  const int n = 16;
  const auto spec = test::preset("a100-sxm-80gb", "single-switch",
                                 {"hardware.node.gpus_per_node=1", "hardware.node.nics_per_node=1",
                                  "topology.nodes=16", "simulation.network=" + mode_key(GetParam())});
  const auto b = test::bench(spec);
  const test::AlphaBeta ab = test::alpha_beta(b.graph(), 0, 1);
  EXPECT_DOUBLE_EQ(ab.bandwidth_Bps, 200e9 / 8);  // the NIC
  for (std::uint64_t s = 8ull << 20; s <= 8ull << 30; s *= 2) {
    const double formula = 2.0 * (n - 1) / n * static_cast<double>(s) / ab.bandwidth_Bps + 2.0 * (n - 1) * ab.alpha_s;
    const double t = test::run_us(b, Op::all_reduce, Algo::ring, n, s) * 1e-6;
    EXPECT_NEAR(t / formula, 1.0, 0.01) << s << " bytes";
  }
}

// The preset's own 8-GPU server: one ring over NVLink.
TEST_P(RingClosedForm, AllReduceInsideAServerFrom8MBTo8GB) {
  const int n = 8;
  const auto spec = test::preset("a100-sxm-80gb", "single-switch", {"simulation.network=" + mode_key(GetParam())});
  const auto b = test::bench(spec);
  const test::AlphaBeta ab = test::alpha_beta(b.graph(), 0, 1);
  EXPECT_DOUBLE_EQ(ab.bandwidth_Bps, 300e9);  // NVLink per GPU per direction
  EXPECT_NEAR(ab.alpha_s, 0.7e-6, 1e-12);
  for (std::uint64_t s = 8ull << 20; s <= 8ull << 30; s *= 2) {
    const double formula = 2.0 * (n - 1) / n * static_cast<double>(s) / ab.bandwidth_Bps + 2.0 * (n - 1) * ab.alpha_s;
    const double t = test::run_us(b, Op::all_reduce, Algo::ring, n, s) * 1e-6;
    EXPECT_NEAR(t / formula, 1.0, 0.01) << s << " bytes";
  }
}

TEST_P(RingClosedForm, AllGatherAndReduceScatter) {
  const int n = 16;
  const auto spec = test::preset("a100-sxm-80gb", "single-switch",
                                 {"hardware.node.gpus_per_node=1", "hardware.node.nics_per_node=1",
                                  "topology.nodes=16", "simulation.network=" + mode_key(GetParam())});
  const auto b = test::bench(spec);
  const test::AlphaBeta ab = test::alpha_beta(b.graph(), 0, 1);
  for (Op op : {Op::all_gather, Op::reduce_scatter}) {
    for (std::uint64_t s : {8ull << 20, 1ull << 30}) {
      const double formula = 1.0 * (n - 1) / n * static_cast<double>(s) / ab.bandwidth_Bps + (n - 1) * ab.alpha_s;
      EXPECT_NEAR(test::run_us(b, op, Algo::automatic, n, s) * 1e-6 / formula, 1.0, 0.01)
          << models::collective::to_string(op) << " " << s;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, RingClosedForm, ::testing::Values(NetworkMode::packet, NetworkMode::analytical),
                         mode_name);

}  // namespace
}  // namespace pf
