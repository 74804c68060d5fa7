// Internal to core/: the MPI communicator behind pf::core::Communicator.
#pragma once

#include <mpi.h>

#include "core/communicator.h"

namespace pf::core {

struct Communicator::Handle {
  MPI_Comm comm;
};

}  // namespace pf::core
