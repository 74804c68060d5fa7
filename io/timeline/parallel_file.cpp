#include "io/timeline/parallel_file.h"

#include "core/mpi_handle.h"

namespace pf::timeline::h5 {

Handle create_parallel_file(const core::Communicator& comm, const std::string& path) {
  const Handle access = plist(H5Pcreate(H5P_FILE_ACCESS), "HDF5 file access properties");
  check(H5Pset_fapl_mpio(access, comm.handle().comm, MPI_INFO_NULL), "HDF5 MPI-IO driver");
  check(H5Pset_libver_bounds(access, H5F_LIBVER_V18, H5F_LIBVER_LATEST), "HDF5 format version");
  // Metadata (object headers, attributes) is identical on every rank: let
  // rank 0 write it in one collective pass instead of each cache flushing.
  check(H5Pset_coll_metadata_write(access, true), "HDF5 collective metadata writes");
  return file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access), "cannot create " + path);
}

}  // namespace pf::timeline::h5
