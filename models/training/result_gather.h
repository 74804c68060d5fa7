// After the engine has run: the per-GPU figures each rank holds, turned into
// the one RunResult every rank agrees on (binding GPU, phase times, exposed
// communication, bottlenecks, uncertainty, engine figures), plus this rank's
// timeline rows. Collective over the run's communicator.
#pragma once

#include "core/communicator.h"
#include "core/engine.h"
#include "models/memory/plan_summary.h"
#include "models/network/network.h"
#include "models/training/run_result.h"
#include "models/training/training_model.h"
#include "models/workload/rank_layout.h"
#include "models/network/lp_partition.h"

namespace pf::models::training {

// Throws pf::SimulationError on every rank when a GPU did not finish its
// program (a deadlock), naming up to 8 stuck GPUs and their ops.
void check_all_finished(const core::Communicator& comm, const TrainingModel& model);

RunResult gather_results(const core::Communicator& comm, const ExperimentSpec& e, const workload::RankLayout& layout,
                         const memory::PlanSummary& memory, const network::ClusterGraph& graph,
                         const partition::RankMapping& mapping, const core::Engine& engine, TrainingModel& model,
                         const network::Network& net);

}  // namespace pf::models::training
