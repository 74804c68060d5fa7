// A SimAI/AICB workload file's content (io/config/README.md: workload {simai: FILE}),
// as plain data: io/simai parses the text, SimaiProgram turns it into each
// GPU's op stream. The format and what each field means is described in
// configs/workloads/simai/README.md; the execution order follows SimAI's
// ASTRA-sim front end (github.com/aliyun/SimAI,
// astra-sim-alibabacloud/astra-sim/workload/Workload.cc).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/workload/group_id.h"
#include "models/workload/op.h"

namespace pf::models::workload {

enum class SimaiPolicy : std::uint8_t {
  transformer,  // HYBRID_TRANSFORMER(_FWD_IN_BCKWD): forward, then input/weight gradients in reverse
  micro,        // MICRO: each line's collective over all GPUs, one after another
};

// One communication field of a layer line.
struct SimaiComm {
  Collective op = Collective::none;  // none, all_reduce, all_gather, reduce_scatter, all_to_all
  bool then_all_to_all = false;      // ALLREDUCEALLTOALL: an all-reduce followed by an all-to-all
  GroupKind group = GroupKind::none; // tp, dp, ep or edp (SimAI's TP, DP, EP, DP_EP)
  std::uint64_t bytes = 0;
};

struct SimaiLayer {
  std::string name;
  int line = 0;  // in the file, for messages
  std::int64_t fwd_ns = 0, input_grad_ns = 0, weight_grad_ns = 0, update_ns = 0;
  SimaiComm fwd, input_grad, weight_grad;
};

struct SimaiWorkload {
  std::string file;
  SimaiPolicy policy = SimaiPolicy::transformer;
  int tp = 1;         // model_parallel_NPU_group
  int ep = 1;
  int pp = 1;
  int vpp = 1;
  int ga = 1;         // gradient-accumulation micro-batches
  int all_gpus = 0;   // 0 when the header does not say
  std::uint64_t pp_comm_bytes = 0;  // activation passed between pipeline stages per micro-batch
  std::vector<SimaiLayer> layers;
};

// AICB unrolls the micro-batches into the layer list: each starts at an
// `embedding_layer` line. The index of the first line of each micro-batch;
// one block from line 0 when there are no such lines or their count is not `ga`.
std::vector<std::size_t> simai_microbatch_starts(const SimaiWorkload& w);

}  // namespace pf::models::workload
