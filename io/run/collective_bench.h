// One collective, timed: the driver behind `preflight collective` and the
// tests. It builds the cluster graph once, partitions it for the
// communicator's ranks, and runs each case as one engine run starting at time
// zero on idle links; the time is when the last member finished.
//
// Each run has a finite end: BenchModel has no finished(), so the engine's
// null-message mode only stops at its end time (once every queue is empty,
// channel clocks would otherwise climb by one lookahead per exchange forever). The end is twice the
// analytical ring estimate plus 50 us; a run that has not finished by then is
// repeated with an end four times later. Both synchronisation modes use the
// same ends, so they commit the same events.
#pragma once

#include <cstdint>
#include <functional>

#include "core/communicator.h"
#include "core/engine_stats.h"
#include "models/collective/collective_types.h"
#include "models/collective/nccl_tuning.h"
#include "models/network/network_config.h"
#include "models/spec/fault_spec.h"
#include "models/spec/hardware_spec.h"
#include "models/spec/simulation_spec.h"
#include "models/spec/topology_spec.h"
#include "models/network/topology.h"
#include "models/network/lp_partition.h"

namespace pf::run {

using models::collective::Algo;
using models::collective::Op;
using models::collective::Proto;

struct BenchOptions {
  models::network::NvlinkFidelity nvlink = models::network::NvlinkFidelity::coarse;
  int channels = 0;  // 0 = automatic
  models::NcclSpec nccl;     // the hardware's NCCL figures (hardware file `nccl`)
  std::vector<models::FaultSpec> faults;  // link and switch faults applied to the cluster (models/network/faults.h)
  // Called now and then with simulated time and events (core::EngineConfig::progress).
  std::function<void(core::SimTime, std::uint64_t)> progress;
};

struct BenchCase {
  Op op = Op::all_reduce;
  Algo algo = Algo::automatic;
  int gpus = 2;  // the first `gpus` GPUs (whole servers first, as GPU ids run server by server)
  std::uint64_t bytes = 0;
  int root = 0;  // broadcast root, member index
};

struct BenchResult {
  core::SimTime time;       // simulated, from start to the last member's completion
  Algo algo = Algo::ring;   // what ran
  Proto proto = Proto::simple;  // NCCL protocol it ran with (Simple when collectives pay the links alone)
  int channels = 1;
  core::EngineStats stats;  // summed over ranks
  std::uint64_t digest = 0; // engine's event-order digest
};

class CollectiveBench {
 public:
  // Throws pf::ConfigError for a cluster the partitioner or engine refuses.
  CollectiveBench(const models::NodeSpec& node, const models::TopologySpec& topology,
                  const models::SimulationSpec& simulation,
                  core::Communicator comm, BenchOptions options = {});

  const models::network::ClusterGraph& graph() const { return graph_; }
  const partition::RankMapping& mapping() const { return mapping_; }
  const models::SimulationSpec& simulation() const { return simulation_; }

  // Checks the case (GPU count, algorithm for the op) and names the algorithm
  // it will run; pf::ConfigError on a bad case. Not collective.
  Algo resolve(const BenchCase& c) const;
  // Runs it on every rank of the communicator (collective).
  BenchResult run(const BenchCase& c) const;

 private:
  struct Attempt {
    BenchResult result;
    std::uint64_t completed = 0;
  };
  Attempt attempt(const BenchCase& c, Algo algo, core::SimTime end) const;

  models::network::ClusterGraph graph_;
  models::SimulationSpec simulation_;
  core::Communicator comm_;
  BenchOptions options_;
  partition::RankMapping mapping_;
};

}  // namespace pf::run
