// What each of the experiment's faults did (RunResult::faults), in two
// halves: every rank's integer figures (fault_figures), then a pure merge of
// all ranks' (fault_impacts). Every figure is an integer sum or maximum over
// ranks, so the result is the same on any rank count.
#pragma once

#include <cstdint>
#include <vector>

#include "models/network/lp_partition.h"
#include "models/training/run_result.h"
#include "models/training/training_model.h"
#include "models/training/training_setup.h"

namespace pf::models::training {

// This rank's share: busy time per stage and per fault's GPUs, and the
// counters of the faulted links it owns (packet mode).
std::vector<std::int64_t> fault_figures(const TrainingSetup& setup, const partition::RankMapping& mapping, int rank,
                                        const TrainingModel& model);

// One entry per fault, from every rank's fault_figures (any order).
// pf::SimulationError when ranks disagree on the figures' length.
std::vector<FaultImpact> fault_impacts(const TrainingSetup& setup, std::uint32_t binding_gpu,
                                       const std::vector<std::vector<std::int64_t>>& per_rank);

}  // namespace pf::models::training
