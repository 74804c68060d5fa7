// What NCCL's cost model means for one simulated collective: which algorithm
// and protocol it runs, and what each of its messages pays beyond the links.
//
// The group's idle-path figures (GroupLinks: the links' achievable bandwidth,
// i.e. line rate x node.nvlink_efficiency / node.nic_efficiency, and their
// latencies) become the communicator NCCL's tuner would see (nccl_tuning.h):
// per-channel bandwidths whose sum is the bandwidth the simulated ring or tree
// gets from its busiest port, channel counts as NCCL's topology search finds
// them (one per NVLink inside a server, two per NIC rail across servers). NCCL
// then predicts a time per (algorithm, protocol) and the fastest wins, among
// the algorithms NCCL has (ring, tree, NVLS inside one server and NVLS-tree
// across servers on NVSwitch-3 systems, CollNet where the fabric offers
// SHARP, PAT for one GPU per server; models/collective/README.md).
//
// The chosen pair shapes the simulated messages (StepCost):
// - the protocol's wire overhead: LL carries 8 bytes of data per 16-byte line
//   and is capped by NCCL's llMaxBw, LL128 carries 120 of every 128 bytes,
//   trees reach 0.92 of the links; each message is inflated by the ratio of
//   the links' bandwidth to NCCL's bandwidth for the pair, so that on idle
//   links the simulated time has NCCL's bandwidth term, and under contention
//   the extra bytes share the links like real flag and padding bytes do;
// - NCCL's latencies: the base latency once, before the first send, and each
//   the rest of NCCL's latency for the size, less what the links themselves
//   add to the simulated pattern (their latencies, a tree's pipeline fill),
//   as algorithm_choice.h estimates it; where that estimate overstates the
//   pattern, NCCL's predicted time is a floor on the GPU's completion
//   (StepCost::floor).
// NVLS (NVLink SHARP: the NVSwitch reduces what the GPUs load and multicasts
// what they store, so each GPU's port carries S(1 + 1/n) each way against the
// ring's 2S(n - 1)/n) runs the ring's messages with a wire factor below 1:
// NCCL's NVLS bandwidth over the ring pattern's, so on idle links the call
// takes NCCL's NVLS time and under contention it loads the links with fewer
// bytes than a ring would.
// So on an idle fabric a simulated ring all-reduce takes NCCL's predicted time
// (tests/unit/collective/nccl_model_test.cpp checks it against an
// independent re-computation of NCCL's formulas).
#pragma once

#include <cstdint>

#include "core/sim_time.h"
#include "models/collective/collective_types.h"
#include "models/collective/group.h"
#include "models/collective/group_table.h"
#include "models/collective/nccl_tuning.h"
#include "models/spec/hardware_spec.h"
#include "models/spec/simulation_spec.h"

namespace pf::models::collective {

// Hardware and user choices that are not in the cluster graph.
struct NcclParams {
  NcclArch arch = NcclArch::ampere;  // hardware nccl.arch
  double latency_scale = 1.0;        // hardware nccl.latency_scale: multiplies NCCL's latencies (calibrated)
  Proto proto = Proto::automatic;    // simulation.nccl_proto / --proto: force a protocol
  bool nvls = false;                 // hardware nccl.nvls: NVLink SHARP offered to the choice (NCCL_NVLS_ENABLE)
  bool collnet = false;              // hardware nccl.collnet: SHARP in the switches (NCCL_COLLNET_ENABLE)
  bool pat = true;                   // hardware nccl.pat: PAT offered (NCCL_PAT_ENABLE)
  double local_pass_Bps = 0;         // hardware nccl.local_pass_gbps in bytes/s: an all-reduce's extra pass over its buffer (0 = none)
  double p2p_nvlink_efficiency = 1;  // hardware nccl.p2p_nvlink_efficiency: p2p's share of the collectives' NVLink rate
};

NcclParams nccl_params(const NcclSpec& hardware, const SimulationSpec& simulation);

// Point-to-point operations (all-to-all, send/recv): NCCL's p2p path, no tuner entry.
bool is_p2p(Op op);

// What one collective call pays beyond its links.
struct StepCost {
  Proto proto = Proto::simple;
  double wire_factor = 1.0;   // wire bytes per payload byte (>= 1; NVLS: below 1)
  core::SimTime base;         // once, before the first message
  // Per step (p2p and the hierarchical rings; NCCL's ring and tree latency is all in `base`):
  core::SimTime intra_step;   // added to each step between two GPUs of one server
  core::SimTime inter_step;   // ... between servers
  // Rings and trees: NCCL's own predicted time for the call (its scaled
  // latency plus the payload at its bandwidth). A GPU's part completes no
  // earlier than this after the GPU started it, so that on idle links the
  // simulated call takes what NCCL predicts even where the pattern's own
  // pipeline fill is shorter than what base subtracted for it; under
  // contention the pattern is slower and this never binds. Zero otherwise.
  core::SimTime floor;
};

// The communicator NCCL would see for this group: its ring and tree graphs;
// with params, also its NVLS (across servers), CollNet and PAT settings.
NcclComm nccl_comm(const Group& group, const GroupLinks& links, NcclArch arch);
// The heads of NCCL's NVLS-tree and CollNet graphs across servers: the
// server's GPUs with a NIC of their own (the NICs its fullest server uses),
// at most 32 (NCCL_MAX_NVLS_ARITY). CollNet's all-gather / reduce-scatter
// needs every GPU of a server to be one.
int nccl_heads(const Group& group, const GroupLinks& links);
NcclComm nccl_comm(const Group& group, const GroupLinks& links, const NcclParams& params);

// PAT's rounds for n GPUs: ceil(log2 n) (rounds_run.h).
int pat_rounds(int members);

NcclFunc nccl_func(Op op);

// The cost of running `request` with preflight algorithm `algo` (already
// chosen; see choose_pair for the automatic choice).
// pipeline_bytes: the largest pipelined piece (simulation.chunk_bytes).
StepCost step_cost(const Request& request, Algo algo, const Group& group, const GroupLinks& links,
                   const NcclParams& params, std::uint64_t pipeline_bytes = 1 << 20);

// NCCL's automatic choice among the simulated algorithms for the op:
// all-reduce ring, tree, NVLS (one server) or NVLS-tree (several; both with
// hardware nccl.nvls), CollNet direct and chain (hardware nccl.collnet);
// all-gather and reduce-scatter ring or PAT (one GPU per server); broadcast
// ring; direct for all-to-all and p2p.
Algo nccl_algo(const Request& request, const Group& group, const GroupLinks& links, const NcclParams& params);

// Closed-form time of a collective on idle links, consistent with what the
// simulated messages give: NCCL's latency (scaled, never below the links' own
// per-step latency) plus the payload at NCCL's bandwidth. Seconds.
double idle_time_s(const Request& request, Algo algo, const Group& group, const GroupLinks& links,
                   const NcclParams& params, std::uint64_t pipeline_bytes = 1 << 20);

}  // namespace pf::models::collective
