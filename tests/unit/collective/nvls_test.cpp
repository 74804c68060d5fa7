// NVLS (NVLink SHARP) all-reduce in one server: NCCL's model of it, its
// simulation (the ring's messages carrying NVLS's bytes), when NCCL picks it,
// and the shipped presets against measured bus bandwidths.
//
// The reference re-derives NCCL 2.30.7's NVLS prediction by hand (src/graph/
// search.cc: one channel per GPU, each pulling through every GPU's NVLink and
// twice through its head's, so 1/(n + 1) of a GPU's NVLink bandwidth per
// channel; src/graph/tuning.cc: nvlsEfficiency, (nChannels - 1)/nChannels,
// x2 for all-reduce, then n / (2(n - 1)) to algorithm bandwidth; 25 us of
// NVLink latency), not from models/collective/nccl_tuning.*.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/error.h"
#include "models/collective/algorithm_choice.h"
#include "models/collective/nccl_cost.h"
#include "models/collective/nccl_tuning.h"
#include "tests/unit/collective/bench_fixture.h"

namespace pf {
namespace {

using namespace models::collective;

// NCCL's NVLS all-reduce time for n GPUs whose NVLink carries `gpu_GBps`
// each way (NCCL's own figure: 18 links x 20.6 GB/s on H100).
double nvls_reference_us(int n, double gpu_GBps, double efficiency, std::uint64_t bytes) {
  const double per_channel = gpu_GBps / (n + 1);
  const double bus = n * (per_channel * efficiency * (n - 1) / n * 2);
  const double algbw = bus * n / (2.0 * (n - 1));
  return 25.0 + static_cast<double>(bytes) / (1000 * algbw);
}

config::ClusterSpec h100(const std::string& mode, const std::vector<std::string>& more = {}) {
  std::vector<std::string> o{"topology.nodes=2", "simulation.network=" + mode};
  o.insert(o.end(), more.begin(), more.end());
  return test::nccl_preset("h100-sxm-80gb", "single-switch", o);
}

double bus_GBps(double us, std::uint64_t bytes, int n) {
  return static_cast<double>(bytes) / (us * 1e3) * 2.0 * (n - 1) / n;
}

class NvlsAgreement : public ::testing::TestWithParam<std::string> {};

TEST_P(NvlsAgreement, SimulatedNvlsTakesNcclsPredictedTimeOnIdleLinks) {
  const auto b = test::bench(h100(GetParam()));
  for (int n : {4, 8}) {
    for (std::uint64_t s = 8; s <= (8ull << 30); s *= 16) {
      const double want = nvls_reference_us(n, 370.8, 0.85, s);
      const double got = test::run_us(b, Op::all_reduce, Algo::nvls, n, s);
      EXPECT_NEAR(got / want, 1.0, 0.05) << n << " GPUs, " << s << " B: NCCL " << want << " us, simulated " << got;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, NvlsAgreement, ::testing::Values("analytical", "packet"),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(Nvls, PresetsReachTheMeasuredBusBandwidth) {
  // 8-GPU all-reduce, NVLS on (NVIDIA/nccl#2140): H100 480 GB/s; B300 845 (the
  // B200 preset: the same NVLink 5 and NVSwitch generation). GB200 over 64
  // GPUs of one NVL72 at 16 GiB: 926 GB/s (OpenXLA's measured table,
  // configs/calibration/xla-perf-tables/collectives.csv).
  struct Case {
    const char* hardware;
    int gpus;
    std::uint64_t bytes;
    double measured;
  };
  for (const Case& c : {Case{"h100-sxm-80gb", 8, 8ull << 30, 480}, Case{"b200-192gb", 8, 8ull << 30, 845},
                        Case{"gb200-nvl72", 64, 16ull << 30, 926}}) {
    const auto b = test::bench(test::nccl_preset(c.hardware, "single-switch", {"simulation.network=analytical"}));
    const double got = bus_GBps(test::run_us(b, Op::all_reduce, Algo::automatic, c.gpus, c.bytes), c.bytes, c.gpus);
    EXPECT_NEAR(got / c.measured, 1.0, 0.05) << c.hardware << ": " << got << " GB/s against " << c.measured;
  }
}

TEST(Nvls, NcclPicksItForLargeAllReducesOfMoreThanTwoGpusInOneServer) {
  const auto spec = h100("analytical");
  const auto b = test::bench(spec);
  GroupTable table(b.graph());
  table.add({0, 1, 2, 3, 4, 5, 6, 7});
  table.add({0, 1});
  table.add({0, 1, 2, 3, 8, 9, 10, 11});  // two servers
  NcclParams params = nccl_params(spec.hardware.nccl, spec.simulation);
  ASSERT_TRUE(params.nvls);
  Request r;
  r.op = Op::all_reduce;
  r.bytes = 64ull << 20;
  EXPECT_EQ(nccl_algo(r, table.group(0), table.links(0), params), Algo::nvls);
  // Two GPUs: NVLS moves 1.5 S per port against the ring's S.
  EXPECT_NE(nccl_algo(r, table.group(1), table.links(1), params), Algo::nvls);
  // Across servers NCCL runs NVLS only with CollNet (NVLS-tree otherwise: nccl_algorithms_test.cpp).
  EXPECT_NE(nccl_algo(r, table.group(2), table.links(2), params), Algo::nvls);
  // Latency-bound sizes: the ring's LL beats NVLS's 25 us.
  r.bytes = 8 << 10;
  EXPECT_EQ(nccl_algo(r, table.group(0), table.links(0), params), Algo::ring);
  // Off (NCCL_NVLS_ENABLE=0, or no multicast): never.
  params.nvls = false;
  r.bytes = 64ull << 20;
  EXPECT_EQ(nccl_algo(r, table.group(0), table.links(0), params), Algo::ring);
}

TEST(Nvls, NvlsIsFasterThanTheRingAndLoadsEachPortWithFewerBytes) {
  const auto spec = h100("analytical");
  const auto b = test::bench(spec);
  GroupTable table(b.graph());
  table.add({0, 1, 2, 3, 4, 5, 6, 7});
  const NcclParams params = nccl_params(spec.hardware.nccl, spec.simulation);
  Request r;
  r.op = Op::all_reduce;
  r.bytes = 1ull << 30;
  const StepCost nvls = step_cost(r, Algo::nvls, table.group(0), table.links(0), params);
  const StepCost ring = step_cost(r, Algo::ring, table.group(0), table.links(0), params);
  // The switch reduces and multicasts: S(1 + 1/n) per port against the ring's
  // 2S(n - 1)/n, at NCCL's 0.85 NVLS efficiency: (9/8) / 0.85 / (14/8) = 0.756.
  EXPECT_NEAR(nvls.wire_factor, (9.0 / 8) / 0.85 / (14.0 / 8), 0.01);
  EXPECT_LT(nvls.wire_factor, 1.0);
  EXPECT_GE(ring.wire_factor, 1.0);
  const double t_nvls = test::run_us(b, Op::all_reduce, Algo::nvls, 8, r.bytes);
  const double t_ring = test::run_us(b, Op::all_reduce, Algo::ring, 8, r.bytes);
  EXPECT_LT(t_nvls, 0.8 * t_ring);
}

TEST(Nvls, ForcingItWhereNcclCannotRunItIsAConfigError) {
  const auto b = test::bench(h100("analytical", {"hardware.nccl.nvls=false"}));
  EXPECT_THROW(test::run_us(b, Op::all_reduce, Algo::nvls, 8, 1 << 20), ConfigError);
  const auto on = test::bench(h100("analytical"));
  EXPECT_THROW(test::run_us(on, Op::all_reduce, Algo::nvls, 16, 1 << 20), ConfigError);  // two servers
  EXPECT_THROW(test::run_us(on, Op::all_gather, Algo::nvls, 8, 1 << 20), ConfigError);
}

}  // namespace
}  // namespace pf
