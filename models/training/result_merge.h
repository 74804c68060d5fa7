// Every rank's figures (rank_figures.h), merged into the one RunResult every
// rank agrees on: binding GPU, phase times, exposed communication,
// bottlenecks, uncertainty, engine figures and fault impacts. Pure: the same
// figures in give the same result, whatever the rank count or order of
// gathering. Its `local` rows are left empty (local_rows() fills them).
#pragma once

#include <vector>

#include "core/sim_time.h"
#include "models/network/lp_partition.h"
#include "models/training/rank_figures.h"
#include "models/training/run_result.h"
#include "models/training/training_setup.h"

namespace pf::models::training {

// `ranks`: one entry per rank, in rank order. `lookahead`: the engine's
// global lookahead (for the report). Throws pf::SimulationError when a GPU did
// not finish its program (a deadlock), naming up to 8 stuck GPUs and their ops.
RunResult merge_results(const TrainingSetup& setup, const partition::RankMapping& mapping, core::SimTime lookahead,
                        const std::vector<RankFigures>& ranks);

}  // namespace pf::models::training
