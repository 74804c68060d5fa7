// After the engine has run: what each of the experiment's faults did
// (RunResult::faults). Collective over the run's communicator; every figure
// is an integer sum or maximum over ranks, so it is the same on any rank count.
#pragma once

#include <vector>

#include "core/communicator.h"
#include "models/network/network.h"
#include "models/spec/experiment_spec.h"
#include "models/training/run_result.h"
#include "models/training/training_model.h"
#include "models/workload/rank_layout.h"
#include "models/network/faults.h"
#include "models/network/lp_partition.h"

namespace pf::models::training {

std::vector<FaultImpact> fault_impacts(const core::Communicator& comm, const ExperimentSpec& e,
                                       const workload::RankLayout& layout, const std::vector<network::FaultReach>& reach,
                                       const partition::RankMapping& mapping, std::uint32_t binding_gpu,
                                       const TrainingModel& model, const network::Network& net);

}  // namespace pf::models::training
