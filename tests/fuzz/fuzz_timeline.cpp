// Fuzz harness: the timeline reader behind `preflight trace` (io/timeline),
// from opening the file to the Chrome-trace export of every row.
//
// What is mutated: the bytes of the datasets' stored data (the /events
// chunks, the tables, /config) of a timeline preflight's own writer made,
// with HDF5's metadata (superblock, object headers, B-trees, heaps) kept as
// written. The data is what this reader interprets; HDF5's own parser is not
// ours to fix — unrestricted mutation found an infinite loop inside HDF5
// 1.10.8 (H5HG_read on a damaged global heap, tests/fuzz/README.md), which
// would stop every campaign there. Replays (every build) take any file.
#include <hdf5.h>
#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "io/timeline/chrome_trace.h"
#include "io/timeline/timeline_reader.h"
#include "tests/fuzz/fuzz_input.h"

#ifdef PF_FUZZ_LIBFUZZER
namespace {

struct Region {
  std::size_t begin = 0, size = 0;
};

struct Seed {
  std::vector<std::uint8_t> bytes;
  std::vector<Region> data;  // where dataset storage lies in `bytes`
};

void add_storage(hid_t dataset, std::vector<Region>& out) {
  const hid_t create = H5Dget_create_plist(dataset);
  const H5D_layout_t layout = H5Pget_layout(create);
  H5Pclose(create);
  if (layout == H5D_CONTIGUOUS) {
    const haddr_t at = H5Dget_offset(dataset);
    const hsize_t size = H5Dget_storage_size(dataset);
    if (at != HADDR_UNDEF && size > 0) out.push_back({static_cast<std::size_t>(at), static_cast<std::size_t>(size)});
  } else if (layout == H5D_CHUNKED) {
    hsize_t chunks = 0;
    if (H5Dget_num_chunks(dataset, H5S_ALL, &chunks) < 0) return;
    for (hsize_t i = 0; i < chunks; ++i) {
      hsize_t offset[1] = {0};
      unsigned mask = 0;
      haddr_t at = HADDR_UNDEF;
      hsize_t size = 0;
      if (H5Dget_chunk_info(dataset, H5S_ALL, i, offset, &mask, &at, &size) >= 0 && at != HADDR_UNDEF && size > 0)
        out.push_back({static_cast<std::size_t>(at), static_cast<std::size_t>(size)});
    }
  }
}

herr_t visit(hid_t root, const char* name, const H5O_info_t* info, void* regions) {
  if (info->type != H5O_TYPE_DATASET) return 0;
  const hid_t dataset = H5Dopen2(root, name, H5P_DEFAULT);
  if (dataset < 0) return 0;
  add_storage(dataset, *static_cast<std::vector<Region>*>(regions));
  H5Dclose(dataset);
  return 0;
}

Seed load_seed(const char* path) {
  Seed seed;
  std::ifstream in(path, std::ios::binary);
  seed.bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  const hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) return seed;
  H5Ovisit(file, H5_INDEX_NAME, H5_ITER_NATIVE, visit, &seed.data);
  H5Fclose(file);
  for (const Region& r : seed.data)
    if (r.begin + r.size > seed.bytes.size()) seed.data.clear();  // not the file we think: mutate freely
  return seed;
}

const Seed& seed() {
  static const Seed s = load_seed(PF_FUZZ_TIMELINE_SEED_FILE);
  return s;
}

}  // namespace

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

// Starts from the seed file and mutates inside one dataset's stored bytes.
extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int rng) {
  const Seed& s = seed();
  if (s.data.empty() || s.bytes.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  if (size != s.bytes.size()) std::memcpy(data, s.bytes.data(), s.bytes.size());
  const Region& r = s.data[rng % s.data.size()];
  LLVMFuzzerMutate(data + r.begin, r.size, r.size);  // in place; the file keeps its size
  return s.bytes.size();
}
#endif

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  // Parallel HDF5 is built on MPI; the reader itself is serial.
  MPI_Init(argc, argv);
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = pf::fuzz::write_scratch("timeline.h5", data, size);
  pf::fuzz::expect_clean_failure("fuzz_timeline", [&] {
    const pf::timeline::TimelineReader reader(path);
    std::ostringstream trace;
    (void)pf::timeline::write_chrome_trace(reader, pf::timeline::TraceRequest{}, trace);
    (void)reader.links();
    (void)reader.gpu_summary();
    (void)reader.config_yaml();
  });
  return 0;
}
