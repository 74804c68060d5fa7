// hardware.nccl.p2p_nvlink_efficiency: NCCL's point-to-point transfers (the
// all-to-all, send/recv) inside one NVLink domain move at this share of the
// collectives' NVLink rate (OpenXLA's measured all-to-all tables;
// models/collective/README.md, item 4). On idle links the all-to-all's
// bandwidth term grows by 1 / efficiency, simulated on either network and in
// the closed form; the collectives and the all-to-all across servers are
// left as they were.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/collective/group_table.h"
#include "models/collective/nccl_cost.h"
#include "tests/unit/collective/bench_fixture.h"

namespace pf {
namespace {

using namespace models::collective;

constexpr double kEfficiency = 0.8;

config::ClusterSpec h100(const std::string& network, int nodes, double efficiency) {
  return test::nccl_preset("h100-sxm-80gb", "single-switch",
                           {"topology.nodes=" + std::to_string(nodes), "simulation.network=" + network,
                            "hardware.nccl.p2p_nvlink_efficiency=" + std::to_string(efficiency)});
}

TEST(P2pRate, TheAllToAllInOneServerMovesItsBytesAtTheP2pShare) {
  for (const char* network : {"analytical", "packet"}) {
    const auto full = test::bench(h100(network, 1, 1.0));
    const auto p2p = test::bench(h100(network, 1, kEfficiency));
    for (int gpus : {2, 8}) {
      // The difference of two large sizes: the bandwidth term alone.
      const std::uint64_t small = std::uint64_t{256} << 20, large = std::uint64_t{1} << 30;
      const auto slope = [&](const auto& b) {
        return test::run_us(b, Op::all_to_all, Algo::direct, gpus, large) -
               test::run_us(b, Op::all_to_all, Algo::direct, gpus, small);
      };
      EXPECT_NEAR(slope(p2p) / slope(full), 1 / kEfficiency, 0.01) << network << " " << gpus << " GPUs";
    }
  }
}

TEST(P2pRate, CollectivesAndTheAllToAllAcrossServersAreUnchanged) {
  const std::uint64_t bytes = std::uint64_t{256} << 20;
  const auto full = test::bench(h100("analytical", 1, 1.0));
  const auto p2p = test::bench(h100("analytical", 1, kEfficiency));
  for (Op op : {Op::all_reduce, Op::all_gather, Op::reduce_scatter})
    EXPECT_EQ(test::run_us(p2p, op, Algo::ring, 8, bytes), test::run_us(full, op, Algo::ring, 8, bytes))
        << to_string(op);
  const auto full2 = test::bench(h100("analytical", 2, 1.0));
  const auto p2p2 = test::bench(h100("analytical", 2, kEfficiency));
  EXPECT_EQ(test::run_us(p2p2, Op::all_to_all, Algo::direct, 16, bytes),
            test::run_us(full2, Op::all_to_all, Algo::direct, 16, bytes));
}

TEST(P2pRate, TheClosedFormCarriesTheShare) {
  const auto spec = h100("analytical", 1, 1.0);
  const auto bench = test::bench(spec);
  const Group group({0, 1, 2, 3, 4, 5, 6, 7}, 8, 8);
  const GroupLinks links = measure_links(bench.graph(), group);
  NcclParams full = nccl_params(spec.hardware.nccl, spec.simulation);
  NcclParams p2p = full;
  p2p.p2p_nvlink_efficiency = kEfficiency;
  Request r;
  r.op = Op::all_to_all;
  r.bytes = std::uint64_t{1} << 30;
  const double bandwidth_s = 7.0 / 8.0 * static_cast<double>(r.bytes) / links.intra_Bps;
  EXPECT_NEAR(idle_time_s(r, Algo::direct, group, links, p2p, 0) - idle_time_s(r, Algo::direct, group, links, full, 0),
              bandwidth_s * (1 / kEfficiency - 1), 1e-9);
  EXPECT_DOUBLE_EQ(step_cost(r, Algo::direct, group, links, p2p, 0).wire_factor, 1 / kEfficiency);
}

}  // namespace
}  // namespace pf
