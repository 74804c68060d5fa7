#include "models/collective/nccl_cost.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "core/error.h"
#include "models/collective/algorithm_choice.h"

namespace pf::models::collective {
namespace {

// NCCL's bandwidth of one NVLink, GB/s (src/graph/topo.h, NCCL 2.30.7:
// SM70/SM80_NVLINK_BW 20, SM90_NVLINK_BW 20.6, SM100_NVLINK_BW 40.1). Its
// topology search finds about one ring channel per link inside a server.
double nvlink_link_GBps(NcclArch arch) {
  switch (arch) {
    case NcclArch::volta:
    case NcclArch::ampere: return 20.0;
    case NcclArch::hopper: return 20.6;
    case NcclArch::blackwell: return 40.1;
  }
  return 20.0;
}

NcclAlgo nccl_of(Algo a) {
  switch (a) {
    case Algo::tree: return NcclAlgo::tree;
    case Algo::nvls: return NcclAlgo::nvls;
    case Algo::nvls_tree: return NcclAlgo::nvls_tree;
    case Algo::collnet_direct: return NcclAlgo::collnet_direct;
    case Algo::collnet_chain: return NcclAlgo::collnet_chain;
    case Algo::pat: return NcclAlgo::pat;
    default: return NcclAlgo::ring;
  }
}

Algo algo_of(NcclAlgo a) {
  switch (a) {
    case NcclAlgo::tree: return Algo::tree;
    case NcclAlgo::nvls: return Algo::nvls;
    case NcclAlgo::nvls_tree: return Algo::nvls_tree;
    case NcclAlgo::collnet_direct: return Algo::collnet_direct;
    case NcclAlgo::collnet_chain: return Algo::collnet_chain;
    case NcclAlgo::pat: return Algo::pat;
    case NcclAlgo::ring: return Algo::ring;
  }
  return Algo::ring;
}

// Which simulated pattern carries an NCCL algorithm's messages
// (collective_state.cpp builds it): NVLS-tree's and CollNet's all-reduces run
// the double binary tree's (log-depth across servers, like them:
// runs_as_tree), PAT its own rounds (rounds_run.h), NVLS, the ring and
// CollNet's all-gathers and reduce-scatters the ring's.
bool tree_carried(NcclFunc f, NcclAlgo a) { return f == NcclFunc::all_reduce && runs_as_tree(algo_of(a)); }

// Algorithms whose switches reduce or multicast: each port carries fewer
// bytes than the pattern simulating them, so their wire factor may be below 1.
bool switch_reduces(NcclAlgo a) {
  return a == NcclAlgo::nvls || a == NcclAlgo::nvls_tree || a == NcclAlgo::collnet_direct ||
         a == NcclAlgo::collnet_chain;
}

int ring_steps(NcclFunc f, int ranks) {
  if (f == NcclFunc::all_reduce) return 2 * (ranks - 1);
  if (f == NcclFunc::reduce_scatter || f == NcclFunc::all_gather) return ranks - 1;
  return ranks;
}

double total_GBps(const NcclComm& c) { return c.channels * (c.nodes <= 2 ? c.bw_intra : c.bw_inter); }

// The bandwidth the simulated pattern gets from its busiest port on idle
// links, in NCCL's algorithm-bandwidth terms (GB/s). PAT's rounds move what
// the ring moves, (n - 1)/n of the buffer through each port.
double simulated_algbw(NcclFunc f, NcclAlgo a, const NcclComm& c) {
  const double total = total_GBps(c);
  if (tree_carried(f, a)) return total * 0.5;
  return total * c.ranks / ring_steps(f, c.ranks);
}

core::SimTime us(double v) { return core::SimTime::from_seconds(std::max(0.0, v) * 1e-6); }

// Direct patterns (all-to-all, send/recv) and preflight's hierarchical
// all-reduce are not in NCCL's tuner: they run NCCL's Simple protocol, so
// each message pays the Simple protocol's hop latency (network hops as with
// one GPU per node). A p2p message pays no collective base latency: nccl-tests
// sendrecv_perf measures ~3 us on NVLink (H100, NVIDIA/nccl#1487; H800 3.7 us,
// NVIDIA/nccl#1984), the NVLink Simple hop's 3.4 us. The hierarchical rings
// pay the ring's base once.
StepCost simple_hops(const GroupLinks& l, const NcclParams& params, bool with_base) {
  StepCost s;
  s.proto = Proto::simple;
  if (with_base) s.base = us(params.latency_scale * nccl_base_latency_us(NcclAlgo::ring, Proto::simple));
  const double intra = params.latency_scale * nccl_hw_latency_us(NcclHw::nvlink, NcclAlgo::ring, Proto::simple);
  const double inter = params.latency_scale * nccl_hw_latency_us(NcclHw::net, NcclAlgo::tree, Proto::simple);
  s.intra_step = us(intra - l.intra_latency_s * 1e6);
  s.inter_step = us(inter - l.inter_latency_s * 1e6);
  return s;
}

// Send/recv and the all-to-all: NCCL's Simple hops, and inside one NVLink
// domain NCCL's p2p rate (hardware.nccl.p2p_nvlink_efficiency) as wire
// bytes: each message carries 1 / efficiency times its payload. Across
// servers the NICs bind and the NVLink share does not matter.
StepCost p2p_cost(const Group& g, const GroupLinks& l, const NcclParams& params) {
  StepCost s = simple_hops(l, params, false);
  if (g.nodes() == 1 && params.p2p_nvlink_efficiency < 1) s.wire_factor = 1 / params.p2p_nvlink_efficiency;
  return s;
}

}  // namespace

bool is_p2p(Op op) { return op == Op::all_to_all || op == Op::send_recv || op == Op::send || op == Op::recv; }

int pat_rounds(int members) {
  int rounds = 0;
  while ((1 << rounds) < members) ++rounds;
  return rounds;
}

NcclParams nccl_params(const NcclSpec& hw, const SimulationSpec& sim) {
  NcclParams p;
  switch (hw.generation) {
    case NcclGeneration::volta: p.arch = NcclArch::volta; break;
    case NcclGeneration::ampere: p.arch = NcclArch::ampere; break;
    case NcclGeneration::hopper: p.arch = NcclArch::hopper; break;
    case NcclGeneration::blackwell: p.arch = NcclArch::blackwell; break;
  }
  p.latency_scale = hw.latency_scale;
  p.nvls = hw.nvls;
  p.collnet = hw.collnet;
  p.pat = hw.pat;
  p.local_pass_Bps = hw.local_pass_gbps * 1e9;
  p.p2p_nvlink_efficiency = hw.p2p_nvlink_efficiency;
  switch (sim.nccl_proto) {
    case NcclProtocol::automatic: p.proto = Proto::automatic; break;
    case NcclProtocol::ll: p.proto = Proto::ll; break;
    case NcclProtocol::ll128: p.proto = Proto::ll128; break;
    case NcclProtocol::simple: p.proto = Proto::simple; break;
  }
  return p;
}

NcclComm nccl_comm(const Group& g, const GroupLinks& l, NcclArch arch) {
  NcclComm c;
  c.ranks = g.size();
  c.nodes = g.nodes();
  c.max_per_node = g.max_per_node();
  c.arch = arch;
  double total = 0;
  if (c.nodes == 1) {
    total = l.intra_Bps / 1e9;
    c.channels = std::clamp(static_cast<int>(std::lround(total / nvlink_link_GBps(arch))), 1, 32);
  } else {
    const int rails = std::max(1, l.rails);
    total = l.inter_Bps / 1e9 * rails;
    if (g.max_per_node() > 1 && l.intra_Bps > 0) total = std::min(total, l.intra_Bps / 1e9);
    c.channels = std::min(32, 2 * rails);  // NCCL opens two channels per NIC
  }
  c.bw_intra = c.bw_inter = total / c.channels;
  return c;
}

int nccl_heads(const Group& g, const GroupLinks& l) { return std::min({g.max_per_node(), std::max(1, l.rails), 32}); }

NcclComm nccl_comm(const Group& g, const GroupLinks& l, const NcclParams& params) {
  NcclComm c = nccl_comm(g, l, params.arch);
  c.pat = params.pat;
  if (c.nodes < 2) return c;
  const int heads = nccl_heads(g, l);
  const double nic = l.inter_Bps / 1e9;
  if (params.nvls && g.max_per_node() > 1 && l.intra_Bps > 0) {
    c.nvls_heads = heads;
    c.nvls_bw_intra = l.intra_Bps / 1e9 / (heads + 1);
    c.nvls_bw_inter = std::min(nic, 2 * c.nvls_bw_intra);
  }
  if (params.collnet) {
    c.collnet = true;
    c.collnet_heads = heads;
    c.collnet_bw = g.max_per_node() > 1 && l.intra_Bps > 0 ? std::min(nic, l.intra_Bps / 1e9 / heads) : nic;
  }
  return c;
}

NcclFunc nccl_func(Op op) {
  switch (op) {
    case Op::all_gather: return NcclFunc::all_gather;
    case Op::reduce_scatter: return NcclFunc::reduce_scatter;
    case Op::broadcast: return NcclFunc::broadcast;
    default: return NcclFunc::all_reduce;
  }
}

Algo nccl_algo(const Request& r, const Group& g, const GroupLinks& l, const NcclParams& params) {
  if (is_p2p(r.op)) return Algo::direct;
  if (g.size() < 2 || r.op == Op::broadcast) return Algo::ring;
  const NcclFunc f = nccl_func(r.op);
  const NcclComm c = nccl_comm(g, l, params);
  // NVLS in one server only: across servers NCCL runs it only beside CollNet
  // (tuning.cc), and NVLS-tree there instead. Without NVLS its entries stay
  // empty, as do its LL and LL128 ones (NVLS runs Simple only).
  const bool nvls = params.nvls && (g.nodes() == 1 || c.nvls_heads >= 2);
  const NcclTable t = nccl_tune(f, c, nvls);
  std::optional<NcclChoice> best;
  if (r.op == Op::all_reduce) {
    best = nccl_choose(t, f, r.bytes, c,
                       {NcclAlgo::tree, NcclAlgo::ring, g.nodes() == 1 ? NcclAlgo::nvls : NcclAlgo::nvls_tree,
                        NcclAlgo::collnet_direct, NcclAlgo::collnet_chain},
                       params.proto);
  } else {
    best = nccl_choose(t, f, r.bytes, c, {NcclAlgo::ring, NcclAlgo::pat, NcclAlgo::collnet_direct}, params.proto);
  }
  return best ? algo_of(best->algo) : Algo::ring;
}

// What the links add to the simulated pattern on idle links beyond its
// bandwidth term: the simulated algorithm's own idle-time estimate
// (algorithm_choice.h) less bytes / bandwidth. That is the ring's step
// latencies where they do not hide behind the busiest port, the tree's hops
// up and down and its pipeline fill, the chain's first hop. NCCL's latency
// figures include all of these.
double links_latency_s(NcclFunc f, NcclAlgo a, const Group& g, const GroupLinks& l, double wire_bytes,
                       double wire_factor, std::uint64_t pipeline_bytes, std::uint64_t smallest) {
  if (f == NcclFunc::broadcast || f == NcclFunc::reduce) return g.nodes() == 1 ? l.intra_latency_s : l.inter_latency_s;
  const double n = g.size();
  const int channels = g.nodes() == 1 ? 1 : std::max(1, l.rails);
  double total = l.intra_Bps;
  if (g.nodes() > 1) {
    total = l.inter_Bps * channels;
    if (g.max_per_node() > 1) total = std::min(total, l.intra_Bps);
  }
  // PAT's rounds: one network hop each, back to back (rounds_run.h).
  if (a == NcclAlgo::pat) return pat_rounds(g.size()) * l.inter_latency_s;
  const auto bytes = static_cast<std::uint64_t>(wire_bytes);
  const Algo algo = tree_carried(f, a) ? Algo::tree : Algo::ring;
  // Pieces as the simulation cuts them: at most pipeline_bytes on the wire
  // (collective_state.cpp), at least the protocol's smallest, `w` times its payload.
  const double w = std::max(1.0, wire_factor);
  const double estimate = all_reduce_estimate(algo, g, l, bytes, channels, pipeline_bytes,
                                              static_cast<std::uint64_t>(static_cast<double>(smallest) * w));
  const double bandwidth = (algo == Algo::tree ? 2.0 : 2 * (n - 1) / n) * wire_bytes / total;
  const double latency = std::max(0.0, estimate - bandwidth);
  return a == NcclAlgo::ring && f != NcclFunc::all_reduce ? latency / 2 : latency;  // n - 1 steps, not 2(n - 1)
}

namespace {

// The all-reduce's pass over its buffer beyond NCCL's model
// (hardware.nccl.local_pass_gbps): bytes / rate whatever the group's size.
double local_pass_s(const Request& r, const NcclParams& params) {
  if (r.op != Op::all_reduce || params.local_pass_Bps <= 0) return 0;
  return static_cast<double>(r.bytes) / params.local_pass_Bps;
}

}  // namespace

StepCost step_cost(const Request& r, Algo algo, const Group& g, const GroupLinks& l, const NcclParams& params,
                   std::uint64_t pipeline_bytes) {
  if (is_p2p(r.op)) return p2p_cost(g, l, params);
  if (g.size() < 2) return simple_hops(l, params, false);
  if (algo == Algo::hierarchical) return simple_hops(l, params, true);
  const NcclFunc f = nccl_func(r.op);
  const NcclAlgo a = nccl_of(algo);
  const NcclComm c = nccl_comm(g, l, params);
  const NcclTable t = nccl_tune(f, c, a == NcclAlgo::nvls || a == NcclAlgo::nvls_tree);
  const auto pick = nccl_choose(t, f, r.bytes, c, {a}, params.proto);
  if (!pick)
    throw ConfigError(std::string("nccl protocol: ") + to_string(params.proto) + " is not available for " +
                      to_string(r.op) + "/" + to_string(algo));
  StepCost s;
  s.proto = pick->proto;
  // NCCL's latency for the size: the multi-node Simple ring's plateau included.
  const double nccl_latency = nccl_latency_us(t, f, a, s.proto, r.bytes, c);
  // The wire overhead: the simulated pattern's idle bandwidth over NCCL's for the pair at this size.
  const double nccl_algbw = nccl_bandwidth(t, f, a, s.proto, r.bytes);
  // Where the switches reduce (NVLS, NVLS-tree, CollNet) each port carries
  // fewer bytes than the pattern simulating the call: no floor at 1.
  s.wire_factor = simulated_algbw(f, a, c) / nccl_algbw;
  if (!switch_reduces(a)) s.wire_factor = std::max(1.0, s.wire_factor);

  // NCCL's latency is charged once, before the first message, less what
  // the links themselves add along the pattern's dependency chain. NCCL's
  // model is additive (latency + bytes / bandwidth); charged step by step,
  // the latencies of one channel would hide behind other channels' bytes on
  // a shared port, which neither NCCL's model nor its measured tables show.
  const double wire = static_cast<double>(r.bytes) * s.wire_factor;
  const double links_s =
      links_latency_s(f, a, g, l, wire, s.wire_factor, pipeline_bytes, smallest_piece(s.proto, s.wire_factor));
  s.base = us(params.latency_scale * nccl_latency - links_s * 1e6);
  // The floor carries the local pass too: on idle links the call takes
  // NCCL's time plus the pass; the pattern's messages do not carry it.
  s.floor = us(params.latency_scale * nccl_latency + static_cast<double>(r.bytes) / (nccl_algbw * 1e3) +
               local_pass_s(r, params) * 1e6);
  return s;
}

double idle_time_s(const Request& r, Algo algo, const Group& g, const GroupLinks& l, const NcclParams& params,
                   std::uint64_t pipeline_bytes) {
  if (g.size() < 2) return 0;
  const StepCost s = step_cost(r, algo, g, l, params, pipeline_bytes);
  const double bytes = static_cast<double>(r.bytes);
  const double n = g.size();
  const double intra_hop = s.intra_step.seconds() + l.intra_latency_s;
  const double inter_hop = s.inter_step.seconds() + l.inter_latency_s;
  const double hop = g.nodes() == 1 ? intra_hop : inter_hop;
  const double port = g.nodes() == 1 ? l.intra_Bps : l.inter_Bps;
  switch (r.op) {
    case Op::all_to_all: return s.base.seconds() + hop + (n - 1) / n * bytes * s.wire_factor / port;
    case Op::send_recv:
    case Op::send:
    case Op::recv: return s.base.seconds() + hop + bytes * s.wire_factor / port;
    default: break;
  }
  if (algo == Algo::hierarchical) {
    const double k = g.max_per_node(), m = g.nodes();
    return s.base.seconds() + 2 * (k - 1) * s.intra_step.seconds() + 2 * (m - 1) * s.inter_step.seconds() +
           all_reduce_estimate(algo, g, l, r.bytes, std::max(1, l.rails), pipeline_bytes);
  }
  // NCCL's (scaled) latency, or the links' own where that is larger.
  const NcclFunc f = nccl_func(r.op);
  const NcclComm c = nccl_comm(g, l, params);
  const NcclAlgo a = nccl_of(algo);
  const double algbw = simulated_algbw(f, a, c) * 1e9 / s.wire_factor;
  return s.base.seconds() + links_latency_s(f, a, g, l, bytes * s.wire_factor, s.wire_factor, pipeline_bytes,
                                                smallest_piece(s.proto, s.wire_factor)) +
         bytes / algbw + local_pass_s(r, params);
}

}  // namespace pf::models::collective
