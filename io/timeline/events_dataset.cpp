#include "io/timeline/events_dataset.h"

#include <algorithm>

#include "io/timeline/hdf5_types.h"
#include "io/timeline/packed_event.h"

namespace pf::timeline::h5 {

namespace {

Handle create_events(hid_t file, hid_t type, std::uint64_t total_rows, const EventStorage& storage) {
  // A fixed-size dataset needs chunks no larger than the data; an empty one
  // gets an unlimited extent so that it can still be chunked and filtered
  // (readers then see the same layout whatever the row count).
  const hsize_t dims[1] = {total_rows};
  const hsize_t max_dims[1] = {total_rows == 0 ? H5S_UNLIMITED : total_rows};
  const hsize_t chunk[1] = {std::max<hsize_t>(1, total_rows == 0 ? storage.chunk_rows
                                                                 : std::min<hsize_t>(total_rows, storage.chunk_rows))};
  const Handle space = dataspace(H5Screate_simple(1, dims, max_dims), "/events dataspace");
  const Handle dcpl = plist(H5Pcreate(H5P_DATASET_CREATE), "/events creation properties");
  check(H5Pset_chunk(dcpl, 1, chunk), "/events chunking");
  // Shuffle groups the bytes of each field across rows: times and ids differ
  // only in their low bytes from row to row, so deflate finds long runs.
  check(H5Pset_shuffle(dcpl), "/events shuffle filter");
  check(H5Pset_deflate(dcpl, static_cast<unsigned>(storage.deflate_level)), "/events deflate filter");
  return dataset(H5Dcreate2(file, "events", type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT), "cannot create /events");
}

// The union of this rank's runs; HDF5 visits a hyperslab union in ascending
// file order, which is the order of the local (sorted) buffer.
void select_runs(hid_t file_space, std::span<const RowRun> runs) {
  if (runs.empty()) {
    check(H5Sselect_none(file_space), "/events selection");
    return;
  }
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const hsize_t start[1] = {runs[i].first};
    const hsize_t count[1] = {runs[i].count};
    check(H5Sselect_hyperslab(file_space, i == 0 ? H5S_SELECT_SET : H5S_SELECT_OR, start, nullptr, count, nullptr),
          "/events selection");
  }
}

}  // namespace

void write_events(hid_t file, std::uint64_t total_rows, const std::byte* packed_rows, std::span<const RowRun> runs,
                  const EventStorage& storage) {
  const Handle type = event_type();
  const Handle set = create_events(file, type, total_rows, storage);
  std::uint64_t local_rows = 0;
  for (const RowRun& r : runs) local_rows += r.count;

  const Handle file_space = dataspace(H5Dget_space(set), "/events dataspace");
  select_runs(file_space, runs);
  const hsize_t memory_dims[1] = {std::max<hsize_t>(1, local_rows)};
  const Handle memory_space = dataspace(H5Screate_simple(1, memory_dims, nullptr), "/events memory dataspace");
  if (local_rows == 0) check(H5Sselect_none(memory_space), "/events memory selection");

  // Compressed datasets can only be written collectively in parallel HDF5.
  const Handle transfer = plist(H5Pcreate(H5P_DATASET_XFER), "/events transfer properties");
  check(H5Pset_dxpl_mpio(transfer, H5FD_MPIO_COLLECTIVE), "/events collective transfer");
  const std::byte nothing[packed::size] = {};  // a valid pointer for a rank with no rows
  check(H5Dwrite(set, type, memory_space, file_space, transfer, local_rows ? packed_rows : nothing),
        "cannot write /events");
}

}  // namespace pf::timeline::h5
