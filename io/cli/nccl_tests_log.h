// Measured collective tables as nccl-tests prints them, for `preflight
// calibrate --nccl-tests`.
//
// Two inputs are read:
//  - nccl-tests' own stdout (all_reduce_perf, all_gather_perf, ...): the
//    "# Collective test starting: <name>" line names the operation, one
//    "#  Rank N ..." line per rank gives the GPU count, "# nThread T nGpus G"
//    the GPUs each host thread launches (-g), and each data row
//    (size count type redop root time algbw busbw #wrong time algbw busbw
//    #wrong) gives the out-of-place time in microseconds;
//  - CSV with a header naming size(B) and either time(ns) or time(us) (the
//    layout of configs/calibration/a100-nccl-allreduce), the GPU count taken
//    from a `<N>gpu` in the file name.
// Either way `gpus`, `op` and `gpus_per_thread` given by the caller take
// precedence (gpus_per_thread: 0 = not given, -1 = all of the table's GPUs
// from one thread, as `all_reduce_perf -g 8` on one server).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/collective/collective_types.h"

namespace pf::cli {

struct NcclTestsRow {
  std::uint64_t bytes = 0;
  double time_us = 0;  // out of place
};

struct NcclTestsTable {
  std::string source;
  models::collective::Op op = models::collective::Op::all_reduce;
  int gpus = 0;
  int gpus_per_thread = 1;  // nccl-tests -g: GPUs one host thread launches per call
  std::vector<NcclTestsRow> rows;
};

// Throws pf::ConfigError naming the file and line on what it cannot read.
// --gpus-per-thread as both commands take it: a count of 1 or more, or
// "all" (returned as -1: every GPU of the table or call from one thread).
// Throws pf::ConfigError naming the option otherwise.
int parse_gpus_per_thread(const std::string& text);

NcclTestsTable read_nccl_tests(const std::string& path, int gpus = 0, const std::string& op = "",
                               int gpus_per_thread = 0);

}  // namespace pf::cli
