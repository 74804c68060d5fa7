// Internal to io/timeline: an HDF5 file opened by every rank of a
// communicator through the MPI-IO driver.
#pragma once

#include <string>

#include "core/communicator.h"
#include "io/timeline/hdf5_handles.h"

namespace pf::timeline::h5 {

// Collective. Truncates `path`. The file format is that of HDF5 1.8 or later
// (so that attributes larger than 64 KiB, such as a long report_json, go to
// dense storage) and is readable by any h5py.
Handle create_parallel_file(const core::Communicator& comm, const std::string& path);

}  // namespace pf::timeline::h5
