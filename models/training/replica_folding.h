// Replica folding (simulation.fold: auto): simulate one data-parallel replica
// per class of equivalent ones and give every other GPU its representative's
// figures and timeline.
//
// A replica is the GPUs of one data-parallel index (every pipeline stage,
// tensor and context rank of it: RankLayout's dp coordinate). Two replicas are
// equivalent when everything that times their GPUs is the same position for
// position: the program (the generator's and SimAI's depend on the stage,
// tensor and context ranks, not on the dp index), the GPU (a replica with a
// GPU on a server that a GPU fault touches is a class of its own), the
// cost of every group each GPU belongs to (its shape over servers and
// GroupLinks), and the pipeline neighbours' paths (latency, bottleneck, NIC
// share). Groups that span replicas (DP, EP, expert-DP) add one condition:
// the replicas' classes must meet in them alike, so the classes are refined
// until every such group seen from equivalent replicas holds the same
// multiset of classes (partition refinement, as in colour refinement).
//
// Why that is exact: a collective over a group that spans replicas is timed
// in closed form from its last member's join (ServerCollectives,
// CrossServerCollectives), every member completing at the same time; equal
// classes join at equal times by induction over the run, so a collective
// needs the joins of one member per class it holds, its representative.
// Hence the last condition: wherever a simulated GPU is a member of such a
// group, so is the representative of every class among the group's members
// (otherwise folding is off, with the reason). Message-level collectives
// between replicas (packet mode, simulation.inter_server: packet) and link or
// switch faults (a message's path then depends on its ECMP flow) break the
// premise, and folding is then off for the run.
//
// The report, /gpu_summary and the timeline rows of every GPU are the
// unfolded run's (tests/mpi/training/fold_cli_test.sh); engine figures
// (the report's simulation block) are the folded run's own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/collective/group_table.h"
#include "models/spec/experiment_spec.h"
#include "models/training/run_result.h"
#include "models/workload/rank_layout.h"

namespace pf::models::training {

struct ReplicaFolding {
  bool active = false;
  std::string reason;          // why folding is off (empty when active)
  int classes = 0;             // replica classes (active: simulated replicas)
  int replicas = 1;            // the layout's dp
  std::vector<int> source;     // per GPU: the simulated GPU it takes its figures from (itself when simulated)
  std::vector<int> weight;     // per GPU: the GPUs it stands for (its class size when simulated, 0 when folded)

  bool simulated(int gpu) const { return source[static_cast<std::size_t>(gpu)] == gpu; }
  int simulated_gpus() const;
  std::vector<std::uint8_t> simulated_flags() const;
};

// What the folding needs to know of the run besides the layout and groups:
// per dense group, whether its collectives are timed in closed form (server
// or cross-server); the dense group index of (kind, index) is base[kind] + index.
struct FoldInputs {
  const ExperimentSpec* experiment = nullptr;
  const ParallelismSpec* parallelism = nullptr;  // the workload's (a SimAI file's may differ from the experiment's)
  const workload::RankLayout* layout = nullptr;
  const collective::GroupTable* groups = nullptr;
  std::vector<std::uint32_t> group_base;   // per GroupKind
  std::vector<std::uint8_t> closed_form;   // per dense group
};

// Every GPU simulated (source = itself, weight 1), with `reason`.
ReplicaFolding unfolded(int gpus, std::string reason);

ReplicaFolding fold_replicas(const FoldInputs& in);

// The group of `kind` of GPU `to` where GPU `from`'s row names its own group
// of that kind (a folded GPU's copy of its representative's row).
std::uint32_t translated_group(const workload::RankLayout& layout, std::uint32_t raw_group, int to);

// A folded GPU's rows from its representative's: gpu and groups replaced.
GpuTotals folded_totals(const GpuTotals& source, int gpu);
ExecutedOp folded_op(const workload::RankLayout& layout, const ExecutedOp& source, int gpu);

}  // namespace pf::models::training
