// NCCL's own cost model: how NCCL 2.30.7 predicts the time of a collective
// for each (algorithm, protocol) and picks the fastest.
//
// This is ncclTopoTuneModel and ncclTopoGetAlgoTime of src/graph/tuning.cc
// (github.com/NVIDIA/nccl at 5067397, NCCL 2.30.7) re-expressed: the same
// constants (base latencies, per-hop hardware latencies by link type,
// protocol bandwidth factors and per-channel caps, the tree correction
// table), the same formulas, for the inputs NCCL reads off a communicator
// (ranks, nodes, GPU generation, link type inside a server, channels and the
// per-channel bandwidths its topology search found). Times are latency +
// bytes / bandwidth, microseconds, with bandwidths in GB/s as NCCL keeps them
// (its "bandwidth" is bytes per microsecond / 1000).
//
// The collective layer uses it twice (nccl_cost.h): to choose the algorithm
// and protocol of each call, and to derive the per-step latencies and the
// protocol's wire overhead that the simulated messages then carry.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace pf::models::collective {

// NCCL's indices (src/include/device.h), in NCCL's order.
enum class NcclAlgo : std::uint8_t { tree, ring, collnet_direct, collnet_chain, nvls, nvls_tree, pat };
enum class Proto : std::uint8_t { ll, ll128, simple, automatic };
enum class NcclFunc : std::uint8_t { broadcast, reduce, all_gather, reduce_scatter, all_reduce };
// NCCL's compute-capability classes (tuning.cc's compCapIndex).
enum class NcclArch : std::uint8_t { volta, ampere, hopper, blackwell };
// Link classes of hwLatencies.
enum class NcclHw : std::uint8_t { nvlink, pci, net };

inline constexpr int kNcclAlgos = 7;
inline constexpr int kNcclProtos = 3;

const char* to_string(Proto p);                         // LL, LL128, Simple, auto
std::optional<Proto> parse_proto(std::string_view s);   // ll | ll128 | simple | auto (any case)
const char* to_string(NcclArch a);                      // volta ...
std::optional<NcclArch> parse_arch(std::string_view s);

// What NCCL's tuner knows about a communicator.
struct NcclComm {
  int ranks = 2;
  int nodes = 1;
  int max_per_node = 1;        // the fullest server's GPUs (NCCL checks every node's localRanks)
  NcclArch arch = NcclArch::ampere;
  bool intra_nvlink = true;    // graphs[a]->typeIntra == LINK_NVL
  int channels = 1;            // graphs[a]->nChannels (ring and tree alike here)
  double bw_intra = 20;        // graphs[a]->bwIntra, GB/s per channel
  double bw_inter = 20;        // graphs[a]->bwInter, GB/s per channel
  double latency_inter_us = 0; // graphs[a]->latencyInter (0 unless the topology search adds one)
  double net_overhead_us = 1;  // getNetOverhead(): 1 us on Intel and ARM hosts, 2 us on AMD
  bool cpu_amd = false;        // LL bandwidth caps of multi-node communicators depend on the host CPU
  bool ll128 = true;           // LL128 enabled (NCCL: NVLink or PCIe-switch paths, same GPU generation)
  bool tree_pattern_tree = false;  // maxTreePattern == NCCL_TOPO_PATTERN_TREE (rare; 0.85 bandwidth)
  // The NVLS graph across servers (NVLS-tree; search.cc's NVLS pattern with a
  // network): one channel per head (a GPU with its own NIC), each pulling
  // through every GPU's NVLink once and its head's twice, so bw_intra is a
  // GPU's NVLink over (heads + 1); bw_inter the head's NIC, at most twice
  // bw_intra (the pass that raises bwInter). 0 heads: no NVLS graph.
  int nvls_heads = 0;
  double nvls_bw_intra = 0;
  double nvls_bw_inter = 0;
  // CollNet (SHARP in the switches, NCCL_COLLNET_ENABLE=1 with the SHARP
  // plugin): its graphs have one channel per head (collnet_heads) at
  // collnet_bw GB/s each (the head's NIC, or its NVLink share).
  bool collnet = false;
  int collnet_heads = 0;
  bool pat = true;  // NCCL_PAT_ENABLE (default 2: on wherever NCCL can run it)
  double collnet_bw = 0;
};

// Per (algorithm, protocol): NCCL's comm->latencies (us) and comm->bandwidths
// (GB/s, already converted from bus to algorithm bandwidth). A bandwidth of 0
// means unavailable.
struct NcclTable {
  std::array<std::array<double, kNcclProtos>, kNcclAlgos> latency_us{};
  std::array<std::array<double, kNcclProtos>, kNcclAlgos> bandwidth{};
};

// The constants of tuning.cc (ncclTunerConstantsDefaults).
double nccl_base_latency_us(NcclAlgo a, Proto p);
double nccl_hw_latency_us(NcclHw hw, NcclAlgo a, Proto p);

// ncclTopoTuneModel for one function (no NVLS or NVLS-tree unless `nvls` is
// set, no CollNet unless comm.collnet: those need NVSwitch multicast / SHARP,
// which the caller decides; no PAT unless comm.pat).
NcclTable nccl_tune(NcclFunc func, const NcclComm& comm, bool nvls = false);

// The two terms of ncclTopoGetAlgoTime: the latency (with the multi-node
// ring's plateau factor) and the bandwidth (with the tree's size correction).
double nccl_latency_us(const NcclTable& table, NcclFunc func, NcclAlgo a, Proto p, std::uint64_t bytes,
                       const NcclComm& comm);
double nccl_bandwidth(const NcclTable& table, NcclFunc func, NcclAlgo a, Proto p, std::uint64_t bytes);

// ncclTopoGetAlgoTime with one pipelined op: microseconds, or a negative
// number when the pair is unavailable.
double nccl_time_us(const NcclTable& table, NcclFunc func, NcclAlgo a, Proto p, std::uint64_t bytes,
                    const NcclComm& comm);

// The pair NCCL's topoGetAlgoInfo picks among `allowed` algorithms (and the
// given protocol, unless automatic): the smallest time, first in NCCL's order
// on ties. Empty when nothing is available.
struct NcclChoice {
  NcclAlgo algo = NcclAlgo::ring;
  Proto proto = Proto::simple;
  double time_us = 0;
};
std::optional<NcclChoice> nccl_choose(const NcclTable& table, NcclFunc func, std::uint64_t bytes,
                                      const NcclComm& comm, std::initializer_list<NcclAlgo> allowed,
                                      Proto proto = Proto::automatic);

}  // namespace pf::models::collective
