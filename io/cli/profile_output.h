// `preflight run --profile-parallelism FILE`: the profile as an HDF5 file of
// columns (io/run/README.md, "Parallelism profile", lists every dataset).
#pragma once

#include <string>

#include "io/run/parallelism_profile.h"

namespace pf::cli {

// Writes FILE (rank 0's profile; throws TimelineOutputError when it cannot).
void write_profile_file(const std::string& path, const run::ParallelismProfile& profile,
                        const run::SyncCostModel& model, const std::string& version);

}  // namespace pf::cli
