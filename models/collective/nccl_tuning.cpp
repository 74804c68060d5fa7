#include "models/collective/nccl_tuning.h"

#include <algorithm>
#include <cctype>
#include <limits>
#include <string>

namespace pf::models::collective {
namespace {

// Figures of src/graph/tuning.cc, NCCL 2.30.7 (ncclTunerConstantsDefaults and
// the refinements in ncclTopoTuneModel). Rows: NCCL's algorithm order; columns
// LL, LL128, Simple.
constexpr double kBaseLat[kNcclAlgos][kNcclProtos] = {
    {6.8, 14.0, 8.4}, {6.6, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {0, 0, 0}, {8.0, 8.0, 8.0}};

constexpr double kHwLat[3][kNcclAlgos][kNcclProtos] = {
    // NVLink
    {{0.6, 1.25, 4.0}, {0.6, 1.9, 3.4}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 25}, {0, 0, 25}, {0, 0, 4.0}},
    // PCI
    {{1.0, 1.9, 4.0}, {1.0, 2.5, 5.7}, {0, 0, 3.7}, {0, 0, 2.8}, {0, 0, 0}, {0, 0, 0}, {0, 0, 4.0}},
    // NET
    {{5.0, 8.5, 14}, {2.7, 4.0, 14.0}, {0, 0, 31}, {0, 0, 30}, {0, 0, 18}, {0, 0, 20.9}, {0, 0, 14}},
};

// [index1][index2]: index1 = GPU class on one node, host CPU (Intel 0, AMD 1) on several.
constexpr double kLlMaxBw[4][3] = {
    {39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {2 * 141.0, 2 * 45.0, 2 * 35.0}};
// [arch][min(nodes,3)-1]
constexpr double kPerChMaxRingLL128Bw[4][3] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 36.7}, {40.0, 40.0, 40.0}};
constexpr double kPerChMaxTreeLL128Bw[4][3] = {
    {20.0, 20.0, 20.0}, {20.0, 20.0, 20.0}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
constexpr double kPerChMaxTreeBw[4][3] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
constexpr double kPerChMaxNvlsTreeBw[4][3] = {
    {26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0.0, 57.7, 45.5}, {0.0, 96.0, 80.0}};
constexpr double kNvlsEfficiency[4] = {0.0, 0.0, 0.85, 0.74};

// Tree all-reduce bandwidth correction by log2(bytes / 64), 64 B .. 256 MB.
constexpr double kTreeCorrection[kNcclProtos][24] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};

std::size_t ix(auto e) { return static_cast<std::size_t>(e); }

int log2i(std::uint64_t n) {
  int l = 0;
  while (n >>= 1) ++l;
  return l;
}

int nsteps(NcclFunc f, int ranks) {
  if (f == NcclFunc::all_reduce) return 2 * (ranks - 1);
  if (f == NcclFunc::reduce_scatter || f == NcclFunc::all_gather) return ranks - 1;
  return ranks;
}

// The (function, algorithm, protocol) combinations tuning.cc skips.
bool applies(NcclFunc f, NcclAlgo a, Proto p, bool nvls, const NcclComm& c) {
  const bool rs_ag = f == NcclFunc::reduce_scatter || f == NcclFunc::all_gather;
  const bool collnet = a == NcclAlgo::collnet_direct || a == NcclAlgo::collnet_chain;
  if ((f == NcclFunc::broadcast || f == NcclFunc::reduce) && a != NcclAlgo::ring) return false;
  if (rs_ag && a != NcclAlgo::pat && a != NcclAlgo::ring && a != NcclAlgo::nvls && a != NcclAlgo::collnet_direct)
    return false;
  if (f == NcclFunc::all_reduce && a == NcclAlgo::pat) return false;
  if ((a == NcclAlgo::nvls || a == NcclAlgo::nvls_tree) && (p != Proto::simple || !nvls)) return false;
  if (a == NcclAlgo::pat && (p != Proto::simple || !c.pat)) return false;
  // CollNet runs Simple only (tuning.cc zeroes its LL and LL128 bandwidths),
  // needs SHARP (NCCL_COLLNET_ENABLE) and more than one server; its
  // all-gather and reduce-scatter (direct only) a plugin with iallgather /
  // ireducescatter, taken as given with hardware.nccl.collnet, and no more
  // GPUs on a server than heads (tuning.cc: "AllGather/ReduceScatter requires
  // 1:1 GPU:NIC").
  if (collnet && (!c.collnet || c.nodes < 2 || p != Proto::simple)) return false;
  if (collnet && rs_ag && c.max_per_node > c.collnet_heads) return false;
  return true;
}

double bus_bandwidth(NcclFunc f, NcclAlgo a, Proto p, const NcclComm& c) {
  const int arch = static_cast<int>(c.arch);
  const int index2 = c.nodes <= 2 ? c.nodes - 1 : 2;
  const int index1 = c.nodes == 1 ? arch : (c.cpu_amd ? 1 : 0);
  const double ll_max = kLlMaxBw[index1][index2];
  const double ppn = static_cast<double>(c.ranks) / c.nodes;
  double bw = c.nodes <= 2 ? c.bw_intra : c.bw_inter;
  int channels = c.channels;
  if (a == NcclAlgo::collnet_direct || a == NcclAlgo::collnet_chain) {
    bw = c.collnet_bw;  // tuning.cc: CollNet reads bwIntra whatever the node count
    channels = c.collnet_heads;
  }
  if (a == NcclAlgo::nvls || a == NcclAlgo::nvls_tree) {
    double per_channel = c.bw_intra;
    double per_channel_inter = c.bw_inter;
    if (a == NcclAlgo::nvls_tree) {
      per_channel = c.nvls_bw_intra;
      per_channel_inter = c.nvls_bw_inter;
      channels = c.nvls_heads;
    }
    if (a == NcclAlgo::nvls) {
      // NCCL's NVLS graph in one server (search.cc, ncclTopoSearchTryNvls and
      // pass 2): one channel per GPU, at most NCCL_MAX_NVLS_ARITY (32) heads;
      // every channel pulls through every GPU's NVLink and twice through its
      // head's, so a channel gets 1/(heads + 1) of a GPU's NVLink bandwidth;
      // the search then raises bwInter to twice bwIntra (no network to bound it).
      const int heads = std::min(32, c.ranks);
      per_channel = c.channels * c.bw_intra / (heads + 1);
      per_channel_inter = 2 * per_channel;
      channels = heads;
    }
    if (channels < 2) return 0;
    double intra = per_channel * kNvlsEfficiency[arch] * (channels - 1) / channels;
    intra *= f == NcclFunc::all_reduce ? 2.0 : (ppn - 1) / ppn;
    const double inter = per_channel_inter * ((c.nodes <= 2 && a == NcclAlgo::nvls_tree) ? 2 : 1);
    bw = std::min(intra, inter);
    if (a == NcclAlgo::nvls_tree) bw = std::min(bw, kPerChMaxNvlsTreeBw[arch][index2]);
  }
  double bus = channels * bw;
  if (a == NcclAlgo::ring && p == Proto::ll) bus = std::min(ll_max, bus * .5);
  if (a == NcclAlgo::ring && p == Proto::ll128) bus = std::min(bus * 0.92, c.channels * kPerChMaxRingLL128Bw[arch][index2]);
  if (a == NcclAlgo::tree && f == NcclFunc::all_reduce) bus = std::min(bus * .92, c.channels * kPerChMaxTreeBw[arch][index2]);
  if (a == NcclAlgo::tree && p == Proto::ll) bus = std::min(bus * 1.0 / 3.8, ll_max);
  if (a == NcclAlgo::tree && p == Proto::ll128)
    bus = std::min(bus * (c.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), c.channels * kPerChMaxTreeLL128Bw[arch][index2]);
  if (a == NcclAlgo::tree && c.tree_pattern_tree) bus *= .85;
  if (a == NcclAlgo::pat) bus *= .75;
  const bool rs_ag = f == NcclFunc::reduce_scatter || f == NcclFunc::all_gather;
  if (a == NcclAlgo::collnet_direct && rs_ag) {
    // Each of the server's GPUs streams through its own head: tuning.cc's
    // ppn x min(bwIntra, bwInter x 0.9), one rate for both in this graph.
    bus = ppn * c.collnet_bw * 0.9;
  } else if (a == NcclAlgo::collnet_direct) {
    // Every GPU should have a NIC of its own to run at full speed: the GPU /
    // NIC ratio, halfway back to 1, divides the bandwidth; Hopper and later x0.85.
    double factor = ppn / channels;
    factor -= (factor - 1) / 2;
    bus /= factor;
    if (c.arch == NcclArch::hopper || c.arch == NcclArch::blackwell) bus *= .85;
  }
  // Bus to algorithm bandwidth (all but the all-gathers / reduce-scatters of
  // PAT and CollNet, whose figures tuning.cc keeps as they are).
  if (!(a != NcclAlgo::ring && rs_ag)) {
    const bool ring_like = a == NcclAlgo::ring || a == NcclAlgo::nvls || a == NcclAlgo::nvls_tree;
    bus *= ring_like ? static_cast<double>(c.ranks) / nsteps(f, c.ranks) : 0.5;
  }
  return bus;
}

double latency(NcclFunc f, NcclAlgo a, Proto p, const NcclComm& c) {
  const NcclHw intra_hw = c.intra_nvlink ? NcclHw::nvlink : NcclHw::pci;
  const NcclHw hw = c.nodes == 1 ? intra_hw : NcclHw::net;
  const int ppn = c.ranks / c.nodes;
  double lat = kBaseLat[ix(a)][ix(p)];
  double intra = kHwLat[ix(intra_hw)][ix(a)][ix(p)];
  // With one GPU per node every hop is exposed: the tree's network latency.
  double inter = (c.ranks == c.nodes ? kHwLat[ix(NcclHw::net)][ix(NcclAlgo::tree)][ix(p)]
                                     : kHwLat[ix(NcclHw::net)][ix(a)][ix(p)]) +
                 c.latency_inter_us;
  if (p == Proto::simple) inter += c.latency_inter_us;  // the flush
  const int steps = nsteps(f, c.ranks);
  switch (a) {
    case NcclAlgo::ring: {
      if (f == NcclFunc::reduce || f == NcclFunc::broadcast) {
        // NCCL adds one hop when every channel has the same rings (sameChannels).
        return lat + kHwLat[ix(hw)][ix(a)][ix(p)];
      }
      if (c.nodes > 1) intra = std::max(intra, c.net_overhead_us * (p == Proto::simple ? 3 : 1));
      const int inter_steps = c.nodes == 1 ? 0 : f == NcclFunc::all_reduce ? 2 * (c.nodes - 1) : c.nodes - 1;
      return lat + (steps - inter_steps) * intra + inter_steps * inter;
    }
    case NcclAlgo::tree:
      if (f == NcclFunc::all_reduce) lat += 2 * ((ppn - 1) * intra + log2i(static_cast<std::uint64_t>(c.nodes)) * inter);
      return lat;
    case NcclAlgo::nvls: return c.nodes > 1 ? intra + inter : intra;
    case NcclAlgo::nvls_tree: return lat + intra + 2 * log2i(static_cast<std::uint64_t>(c.nodes)) * inter;
    case NcclAlgo::collnet_direct:
      // 0.4 us of arity serialisation per extra GPU of the server.
      return lat + 2 * (std::min(1, ppn - 1) * intra + (ppn - 1) * 0.4) + inter;
    case NcclAlgo::collnet_chain: return lat + 2 * (ppn - 1) * intra + inter;
    case NcclAlgo::pat:
      if (f == NcclFunc::all_gather || f == NcclFunc::reduce_scatter)
        lat += log2i(static_cast<std::uint64_t>(c.nodes)) * (inter / 3.5) + c.ranks * 2.8;
      return lat;
    default: return lat;
  }
}

}  // namespace

const char* to_string(Proto p) {
  switch (p) {
    case Proto::ll: return "LL";
    case Proto::ll128: return "LL128";
    case Proto::simple: return "Simple";
    case Proto::automatic: return "auto";
  }
  return "auto";
}

namespace {
std::string lower(std::string_view s) {
  std::string out(s);
  for (char& ch : out) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}
}  // namespace

std::optional<Proto> parse_proto(std::string_view s) {
  const std::string l = lower(s);
  if (l == "ll") return Proto::ll;
  if (l == "ll128") return Proto::ll128;
  if (l == "simple") return Proto::simple;
  if (l == "auto") return Proto::automatic;
  return std::nullopt;
}

const char* to_string(NcclArch a) {
  switch (a) {
    case NcclArch::volta: return "volta";
    case NcclArch::ampere: return "ampere";
    case NcclArch::hopper: return "hopper";
    case NcclArch::blackwell: return "blackwell";
  }
  return "ampere";
}

std::optional<NcclArch> parse_arch(std::string_view s) {
  const std::string l = lower(s);
  for (NcclArch a : {NcclArch::volta, NcclArch::ampere, NcclArch::hopper, NcclArch::blackwell})
    if (l == to_string(a)) return a;
  return std::nullopt;
}

double nccl_base_latency_us(NcclAlgo a, Proto p) { return kBaseLat[ix(a)][ix(p)]; }
double nccl_hw_latency_us(NcclHw hw, NcclAlgo a, Proto p) { return kHwLat[ix(hw)][ix(a)][ix(p)]; }

NcclTable nccl_tune(NcclFunc func, const NcclComm& comm, bool nvls) {
  NcclTable t;
  if (comm.ranks <= 1) return t;
  for (int ai = 0; ai < kNcclAlgos; ++ai) {
    for (int pi = 0; pi < kNcclProtos; ++pi) {
      const auto a = static_cast<NcclAlgo>(ai);
      const auto p = static_cast<Proto>(pi);
      if (!applies(func, a, p, nvls, comm)) continue;
      if (p == Proto::ll128 && !comm.ll128) continue;
      if (a == NcclAlgo::nvls_tree && comm.nodes == 1) continue;  // NCCL disables NVLS tree on one node
      if (a == NcclAlgo::pat && comm.nodes != comm.ranks) continue;  // PAT: one GPU per node
      if (a == NcclAlgo::nvls_tree && comm.nvls_heads < 2) continue;   // NVLS needs two channels
      if ((a == NcclAlgo::collnet_direct || a == NcclAlgo::collnet_chain) && comm.collnet_heads < 1) continue;
      t.bandwidth[ix(a)][ix(p)] = bus_bandwidth(func, a, p, comm);
      t.latency_us[ix(a)][ix(p)] = latency(func, a, p, comm);
    }
  }
  return t;
}

double nccl_latency_us(const NcclTable& table, NcclFunc func, NcclAlgo a, Proto p, std::uint64_t bytes,
                       const NcclComm& comm) {
  double lat = table.latency_us[ix(a)][ix(p)];
  if (a == NcclAlgo::ring && p == Proto::simple && comm.nodes > 1 && func == NcclFunc::all_reduce &&
      bytes / (static_cast<std::uint64_t>(comm.channels) * static_cast<std::uint64_t>(comm.ranks)) >= 64)
    lat *= comm.arch == NcclArch::volta ? 1.9 : 1.4;  // the ring's latency plateau
  return lat;
}

double nccl_bandwidth(const NcclTable& table, NcclFunc func, NcclAlgo a, Proto p, std::uint64_t bytes) {
  double bw = table.bandwidth[ix(a)][ix(p)];
  const int log_size = log2i(bytes >> 6);
  if (a == NcclAlgo::tree && func == NcclFunc::all_reduce && (bytes >> 6) > 0 && log_size < 23)
    bw *= kTreeCorrection[ix(p)][log_size];
  return bw;
}

double nccl_time_us(const NcclTable& table, NcclFunc func, NcclAlgo a, Proto p, std::uint64_t bytes,
                    const NcclComm& comm) {
  if (comm.ranks <= 1) return a == NcclAlgo::ring && p == Proto::simple ? 0.0 : -1.0;
  const double bw = nccl_bandwidth(table, func, a, p, bytes);
  if (bw <= 0) return -1.0;
  return nccl_latency_us(table, func, a, p, bytes, comm) + static_cast<double>(bytes) / (1000 * bw);
}

std::optional<NcclChoice> nccl_choose(const NcclTable& table, NcclFunc func, std::uint64_t bytes,
                                      const NcclComm& comm, std::initializer_list<NcclAlgo> allowed, Proto proto) {
  std::optional<NcclChoice> best;
  for (int ai = 0; ai < kNcclAlgos; ++ai) {
    const auto a = static_cast<NcclAlgo>(ai);
    if (std::find(allowed.begin(), allowed.end(), a) == allowed.end()) continue;
    for (int pi = 0; pi < kNcclProtos; ++pi) {
      const auto p = static_cast<Proto>(pi);
      if (proto != Proto::automatic && p != proto) continue;
      const double t = nccl_time_us(table, func, a, p, bytes, comm);
      if (t >= 0 && (!best || t < best->time_us)) best = NcclChoice{a, p, t};
    }
  }
  return best;
}

}  // namespace pf::models::collective
