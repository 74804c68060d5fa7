// Everything a training run is built from before ranks come in: the cluster
// graph with the experiment's faults, the packet/analytical network, the
// collective layer with every workload group registered, the GPU conditions
// and the executors' shared settings. Knows nothing of MPI or partitions: a
// runner (io/run/training_run.h) partitions graph(), builds the engine, and
// asks for the model of the GPUs its rank owns.
//
//   TrainingSetup setup(experiment, built_in_workload(experiment));
//   TrainingModel model = setup.model(local_gpus, record);
//
// Not copyable or movable: the network, groups and collectives refer to the
// graph and to each other, and every model refers to them.
#pragma once

#include <memory>
#include <vector>

#include "models/collective/collective_engine.h"
#include "models/collective/group_table.h"
#include "models/network/faults.h"
#include "models/network/network.h"
#include "models/network/topology.h"
#include "models/spec/experiment_spec.h"
#include "models/training/gpu_conditions.h"
#include "models/training/cross_server_collective.h"
#include "models/training/replica_folding.h"
#include "models/training/server_collective.h"
#include "models/training/training_model.h"
#include "models/training/training_workload.h"
#include "models/workload/rank_layout.h"

namespace pf::models::training {

class TrainingSetup {
 public:
  // Throws pf::ConfigError when the layout's GPUs and the topology's differ,
  // or for faults the topology cannot take.
  TrainingSetup(const ExperimentSpec& experiment, TrainingWorkload workload);
  TrainingSetup(const TrainingSetup&) = delete;
  TrainingSetup& operator=(const TrainingSetup&) = delete;

  const ExperimentSpec& experiment() const { return experiment_; }
  const TrainingWorkload& workload() const { return workload_; }
  const workload::RankLayout& layout() const { return layout_; }
  const network::ClusterGraph& graph() const { return graph_; }
  const std::vector<network::FaultReach>& fault_reach() const { return reach_; }
  const network::Network& network() const { return net_; }
  // Which GPUs run their programs and whose figures the others take (replica_folding.h).
  const ReplicaFolding& folding() const { return folding_; }
  // Expected events per cluster vertex for the partitioner: folded GPUs weigh nothing.
  std::vector<double> partition_weights() const;
  // The servers in the order simulation.partition: replicas blocks them:
  // by their first GPU's place within its pipeline stage, then by stage, so
  // that each contiguous run holds the same share of every stage's servers
  // (whole data-parallel replicas, when there are at least as many as ranks).
  std::vector<std::int32_t> replica_order() const;

  // The LP model of the simulated GPUs among `local_gpus` (ascending);
  // record[gpu]: keep its ops as timeline rows (shorter than the GPU count:
  // the rest are not recorded); a folded GPU's representative records for it.
  TrainingModel model(const std::vector<int>& local_gpus, std::vector<bool> record);

 private:
  const ExperimentSpec& experiment_;
  TrainingWorkload workload_;
  workload::RankLayout layout_;
  network::ClusterGraph graph_;
  std::vector<network::FaultReach> reach_;
  ExecutionShared shared_;  // before groups_: registering them sets its group bases
  collective::GroupTable groups_;
  network::Network net_;
  collective::CollectiveConfig collective_config_;
  collective::CollectiveEngine collectives_;
  GpuConditions conditions_;
  ServerCollectives server_;
  ReplicaFolding folding_;
  std::unique_ptr<CrossServerCollectives> cross_;  // analytical network, inter_server: analytical
};

}  // namespace pf::models::training
