// Internal to core/: the MPI communicator behind pf::core::Communicator.
#pragma once

#include <mpi.h>

#include "core/communicator.h"

namespace pf::core {

struct Communicator::Handle {
  MPI_Comm comm;
};

// Throws pf::SimulationError "<what> failed: <MPI's error string>" unless rc
// is MPI_SUCCESS (MpiSession sets MPI_ERRORS_RETURN, so errors come back here).
void check_mpi(int rc, const char* what);

}  // namespace pf::core
