// hardware.nccl.local_pass_gbps: an all-reduce's pass over its whole buffer
// beyond NCCL's model, bytes / rate per call whatever the group's size (the
// A100 tables' bus bandwidth rises from 197 GB/s on 2 GPUs to 229 on 8;
// models/collective/README.md, "Checks"). On idle links it adds exactly that
// to every NCCL all-reduce, simulated (the floor) or closed form (the
// server collectives' idle time), and nothing to other operations.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "models/collective/group_table.h"
#include "models/collective/nccl_cost.h"
#include "tests/unit/collective/bench_fixture.h"

namespace pf {
namespace {

using namespace models::collective;

constexpr double kPassGbps = 500;

config::ClusterSpec a100(const std::string& network, double pass_gbps) {
  return test::nccl_preset("a100-sxm-80gb", "single-switch",
                           {"topology.nodes=1", "simulation.network=" + network,
                            "hardware.nccl.local_pass_gbps=" + std::to_string(pass_gbps)});
}

TEST(LocalPass, AddsBytesOverItsRateToEveryAllReduceOnIdleLinks) {
  for (const char* network : {"analytical", "packet"}) {
    const auto without = test::bench(a100(network, 0));
    const auto with = test::bench(a100(network, kPassGbps));
    for (Algo algo : {Algo::ring, Algo::tree}) {
      for (int gpus : {2, 5, 8}) {
        for (std::uint64_t bytes : {std::uint64_t{4} << 20, std::uint64_t{256} << 20, std::uint64_t{1} << 30}) {
          const double pass_us = static_cast<double>(bytes) / (kPassGbps * 1e3);
          const double added = test::run_us(with, Op::all_reduce, algo, gpus, bytes) -
                               test::run_us(without, Op::all_reduce, algo, gpus, bytes);
          EXPECT_NEAR(added, pass_us, 0.01 * pass_us)
              << network << " " << to_string(algo) << " " << gpus << " GPUs " << bytes << " B";
        }
      }
    }
  }
}

TEST(LocalPass, LeavesOtherOperationsAsTheyWere) {
  const auto without = test::bench(a100("analytical", 0));
  const auto with = test::bench(a100("analytical", kPassGbps));
  for (Op op : {Op::all_gather, Op::reduce_scatter, Op::all_to_all}) {
    const std::uint64_t bytes = std::uint64_t{256} << 20;
    const Algo algo = op == Op::all_to_all ? Algo::direct : Algo::ring;
    EXPECT_EQ(test::run_us(with, op, algo, 8, bytes), test::run_us(without, op, algo, 8, bytes)) << to_string(op);
  }
}

TEST(LocalPass, TheClosedFormTheServerCollectivesUseCarriesItExactly) {
  const auto spec = a100("analytical", 0);
  const auto bench = test::bench(spec);
  const Group group({0, 1, 2, 3, 4, 5, 6, 7}, 8, 8);
  const GroupLinks links = measure_links(bench.graph(), group);
  NcclParams off = nccl_params(spec.hardware.nccl, spec.simulation);
  NcclParams on = off;
  on.local_pass_Bps = kPassGbps * 1e9;
  Request r;
  r.op = Op::all_reduce;
  r.bytes = std::uint64_t{64} << 20;
  const double pass_s = static_cast<double>(r.bytes) / on.local_pass_Bps;
  EXPECT_NEAR(idle_time_s(r, Algo::ring, group, links, on, 0) - idle_time_s(r, Algo::ring, group, links, off, 0), pass_s,
              1e-12);
  r.op = Op::reduce_scatter;
  EXPECT_EQ(idle_time_s(r, Algo::ring, group, links, on, 0), idle_time_s(r, Algo::ring, group, links, off, 0));
}

}  // namespace
}  // namespace pf
