// A collective gives the same time, the same number of events and the same
// event order (engine digest) on any number of ranks, with every partition
// strategy, both synchronisation modes and both network modes. Each case runs
// on all ranks of MPI_COMM_WORLD and is compared with a sequential reference
// on MPI_COMM_SELF.
#include <gtest/gtest.h>

#include <tuple>

#include "io/run/collective_bench.h"

namespace pf {
namespace {

using models::collective::Algo;
using run::BenchCase;
using run::BenchResult;
using run::CollectiveBench;
using models::collective::Op;

// 6 rail-optimised servers of 4 GPUs in 3 leaf groups: NVLink, leaf, spine
// links all exist, so every strategy cuts some of them.
models::NodeSpec server() {
  models::NodeSpec n;
  n.gpus_per_node = 4;
  n.nvlink_bandwidth_gbps = 300;
  n.nvlink_latency_us = 0.7;
  n.nics_per_node = 4;
  n.nic_bandwidth_gbps = 200;
  n.nic_latency_us = 2.0;
  n.pcie_bandwidth_gbps = 32;
  return n;
}

models::TopologySpec topology() {
  models::TopologySpec t;
  t.kind = models::TopologyKind::rail_optimized;
  t.nodes = 6;
  t.nodes_per_leaf = 2;
  t.link_latency_us = 0.1;
  t.switch_latency_us = 0.13;
  return t;
}

using Param = std::tuple<models::PartitionStrategy, models::SyncMode, models::NetworkMode>;

class CollectiveDeterminism : public ::testing::TestWithParam<Param> {};

TEST_P(CollectiveDeterminism, SameResultsAsSequential) {
  const auto [strategy, sync, network] = GetParam();
  models::SimulationSpec sim;
  sim.partition = strategy;
  sim.sync = sync;
  sim.network = network;
  sim.chunk_bytes = 256 << 10;
  const CollectiveBench reference(server(), topology(), sim, core::Communicator::self());
  const CollectiveBench parallel(server(), topology(), sim, core::Communicator::world());
  const std::vector<BenchCase> cases{
      {Op::all_reduce, Algo::ring, 24, 3 << 20, 0},         {Op::all_reduce, Algo::tree, 24, 3 << 20, 0},
      {Op::all_reduce, Algo::hierarchical, 24, 3 << 20, 0}, {Op::all_to_all, Algo::automatic, 22, 2 << 20, 0},
      {Op::broadcast, Algo::automatic, 24, 2 << 20, 5},     {Op::all_gather, Algo::automatic, 16, 1 << 20, 0},
      {Op::send_recv, Algo::automatic, 24, 1 << 20, 0}};
  for (const BenchCase& c : cases) {
    const BenchResult a = reference.run(c);
    const BenchResult b = parallel.run(c);
    EXPECT_EQ(a.time, b.time) << to_string(c.op) << "/" << to_string(c.algo);
    EXPECT_EQ(a.stats.committed_events, b.stats.committed_events) << to_string(c.op);
    EXPECT_EQ(a.digest, b.digest) << to_string(c.op) << "/" << to_string(c.algo);
    EXPECT_GT(a.time, core::SimTime::zero());
    if (core::Communicator::world().size() > 1 && c.op != Op::send_recv) {
      EXPECT_GT(b.stats.remote_events, 0u);
    }
  }
}

// Adaptive routing chooses ports by their queues, and several queue pairs per
// connection reorder a message's chunks: still the same on any rank count, in
// both synchronisation modes, with and without a failed spine.
TEST(CollectiveDeterminismAdaptive, SameResultsAsSequential) {
  for (const models::Routing routing : {models::Routing::adaptive, models::Routing::ecmp_multi_qp}) {
  models::TopologySpec t = topology();
  t.routing = routing;
  t.qps_per_connection = 4;
  for (const models::SyncMode sync : {models::SyncMode::window, models::SyncMode::null_message}) {
    for (const bool failed_spine : {false, true}) {
      models::SimulationSpec sim;
      sim.partition = models::PartitionStrategy::round_robin;
      sim.sync = sync;
      sim.chunk_bytes = 128 << 10;
      run::BenchOptions options;
      if (failed_spine) {
        models::FaultSpec f;
        f.target = models::FaultTarget::switch_vertex;
        f.src = "spine0";
        f.failed = true;
        options.faults = {f};
      }
      const CollectiveBench reference(server(), t, sim, core::Communicator::self(), options);
      const CollectiveBench parallel(server(), t, sim, core::Communicator::world(), options);
      for (const BenchCase& c : {BenchCase{Op::all_to_all, Algo::automatic, 24, 4 << 20, 0},
                                 BenchCase{Op::all_reduce, Algo::ring, 24, 6 << 20, 0}}) {
        const BenchResult a = reference.run(c);
        const BenchResult b = parallel.run(c);
        EXPECT_EQ(a.time, b.time) << to_string(c.op) << (failed_spine ? " with a failed spine" : "");
        EXPECT_EQ(a.digest, b.digest) << to_string(c.op);
      }
    }
  }
  }
}

// NVLS-tree and CollNet (the tree's messages) and PAT (Bruck's rounds,
// one GPU per server): still the same on any rank count, in both modes.
TEST(CollectiveDeterminismNcclAlgorithms, SameResultsAsSequential) {
  run::BenchOptions options;
  options.nccl.generation = models::NcclGeneration::hopper;
  options.nccl.nvls = true;
  options.nccl.collnet = true;
  models::NodeSpec one_gpu = server();
  one_gpu.gpus_per_node = 1;
  one_gpu.nics_per_node = 1;
  models::TopologySpec twelve = topology();
  twelve.nodes = 12;
  for (const models::SyncMode sync : {models::SyncMode::window, models::SyncMode::null_message}) {
    models::SimulationSpec sim;
    sim.partition = models::PartitionStrategy::metis;
    sim.sync = sync;
    sim.chunk_bytes = 256 << 10;
    const CollectiveBench reference(server(), topology(), sim, core::Communicator::self(), options);
    const CollectiveBench parallel(server(), topology(), sim, core::Communicator::world(), options);
    for (const BenchCase& c : {BenchCase{Op::all_reduce, Algo::nvls_tree, 24, 3 << 20, 0},
                               BenchCase{Op::all_reduce, Algo::collnet_direct, 24, 3 << 20, 0},
                               BenchCase{Op::all_reduce, Algo::collnet_chain, 24, 3 << 20, 0}}) {
      const BenchResult a = reference.run(c);
      const BenchResult b = parallel.run(c);
      EXPECT_EQ(a.time, b.time) << to_string(c.algo);
      EXPECT_EQ(a.digest, b.digest) << to_string(c.algo);
    }
    const CollectiveBench ref_pat(one_gpu, twelve, sim, core::Communicator::self(), options);
    const CollectiveBench par_pat(one_gpu, twelve, sim, core::Communicator::world(), options);
    for (const Op op : {Op::all_gather, Op::reduce_scatter}) {
      const BenchCase c{op, Algo::pat, 12, 3 << 20, 0};
      const BenchResult a = ref_pat.run(c);
      const BenchResult b = par_pat.run(c);
      EXPECT_EQ(a.time, b.time) << to_string(op);
      EXPECT_EQ(a.digest, b.digest) << to_string(op);
      EXPECT_GT(a.time, core::SimTime::zero());
    }
  }
}

std::string name(const ::testing::TestParamInfo<Param>& p) {
  const auto [strategy, sync, network] = p.param;
  return std::string(partition::to_string(strategy)) + (sync == models::SyncMode::window ? "_window" : "_null") +
         (network == models::NetworkMode::packet ? "_packet" : "_analytical");
}

INSTANTIATE_TEST_SUITE_P(
    StrategiesSyncModes, CollectiveDeterminism,
    ::testing::Combine(::testing::Values(models::PartitionStrategy::block, models::PartitionStrategy::round_robin,
                                         models::PartitionStrategy::metis),
                       ::testing::Values(models::SyncMode::window, models::SyncMode::null_message),
                       ::testing::Values(models::NetworkMode::packet, models::NetworkMode::analytical)),
    name);

}  // namespace
}  // namespace pf
