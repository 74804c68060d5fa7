#include "models/collective/algorithm_choice.h"

#include <algorithm>
#include <array>
#include <limits>
#include <string>

#include "core/error.h"
#include "models/collective/nccl_cost.h"

namespace pf::models::collective {

int channel_count(const CollectiveConfig& config, const Group& group, const GroupLinks& links) {
  if (config.channels > 0) return std::min(config.channels, kMaxChannels);
  // Inside a server one ring already fills a GPU's NVLink port; across
  // servers each channel leaves through its own NIC.
  return group.nodes() == 1 ? 1 : std::clamp(links.rails, 1, kMaxChannels);
}

std::uint64_t pipeline_piece(std::uint64_t part, int depth, std::uint64_t max_bytes, std::uint64_t smallest) {
  std::uint64_t piece = std::max<std::uint64_t>(1, max_bytes);
  const auto wanted = static_cast<std::uint64_t>(4 * std::max(depth, 1));
  while (piece > smallest && part / piece < wanted) piece /= 2;
  return piece;
}

std::uint64_t smallest_piece(Proto proto, double wire_factor) {
  if (proto != Proto::ll) return kSmallestPiece;
  return std::max<std::uint64_t>(256, static_cast<std::uint64_t>(8 * 1024 / std::max(1.0, wire_factor)));
}

int tree_pipeline_depth(const Group& group) {
  return group.max_per_node() - 1 + std::max(group.tree_depth(0), group.tree_depth(1));
}

std::uint64_t tree_piece(std::uint64_t part, const Group& group, std::uint64_t max_bytes, std::uint64_t smallest) {
  return pipeline_piece(part, tree_pipeline_depth(group), max_bytes, smallest);
}

bool available(Op op, Algo algo, const Group& group, const NcclParams* nccl) {
  if (algo == Algo::automatic) return true;
  const bool servers = group.nodes() > 1;
  switch (op) {
    case Op::all_reduce:
      switch (algo) {
        case Algo::ring:
        case Algo::tree: return true;
        case Algo::hierarchical: return group.regular();
        case Algo::nvls: return nccl && nccl->nvls && !servers && group.size() >= 2;
        case Algo::nvls_tree: return nccl && nccl->nvls && servers && group.max_per_node() >= 2;
        case Algo::collnet_direct:
        case Algo::collnet_chain: return nccl && nccl->collnet && servers;
        default: return false;
      }
    case Op::all_gather:
    case Op::reduce_scatter:
      return algo == Algo::ring || (algo == Algo::pat && nccl && nccl->pat && servers && group.max_per_node() == 1) ||
             (algo == Algo::collnet_direct && nccl && nccl->collnet && servers);
    case Op::broadcast: return algo == Algo::ring;
    case Op::all_to_all:
    case Op::send_recv:
    case Op::send:
    case Op::recv: return algo == Algo::direct;
  }
  return false;
}

namespace {

double inf() { return std::numeric_limits<double>::infinity(); }

// Bandwidth out of a server when c channels leave through `rails` NICs,
// capped by a GPU's NVLink port where the ring also crosses NVLink.
double server_Bps(const Group& g, const GroupLinks& l, int channels) {
  const double nic = l.inter_Bps * std::min(channels, l.rails);
  return g.max_per_node() > 1 ? std::min(l.intra_Bps, nic) : nic;
}

// A ring is a closed pipeline with n messages in flight per channel. It is
// bound by its dependency chain (2(n-1) hops, each paying its latency) or by
// its busiest port (2(n-1)/n S through the slowest class of hop), whichever is
// longer; the shorter one adds in as far as the busiest hops are also on the
// chain. When every hop is alike (one server, or one GPU per server) that is
// the closed form 2(n-1) alpha + 2(n-1)/n S/B; with 8 GPUs per server the
// chain overlaps the NIC time, as the simulated rings show.
double ring_estimate(const Group& g, const GroupLinks& l, double bytes, int channels) {
  const double n = g.size();
  const double m = g.nodes();
  if (g.nodes() == 1) return 2 * (n - 1) * l.intra_latency_s + 2 * (n - 1) / n * bytes / l.intra_Bps;
  const double chain = 2 * (n - 1) / n * (m * l.inter_latency_s + (n - m) * l.intra_latency_s);
  const double nic_Bps = l.inter_Bps * std::min(channels, l.rails);
  const bool nic_bound = g.max_per_node() == 1 || nic_Bps <= l.intra_Bps;
  const double port = 2 * (n - 1) / n * bytes / server_Bps(g, l, channels);
  const double busiest_share = nic_bound ? m / n : (n - m) / n;  // of the hops on the chain
  return std::max(chain, port) + busiest_share * std::min(chain, port);
}

double tree_estimate(const Group& g, const GroupLinks& l, double bytes, int channels, std::uint64_t pipeline,
                     std::uint64_t smallest) {
  const double chain = g.max_per_node() - 1;
  const double levels = std::max(g.tree_depth(0), g.tree_depth(1));
  const double bw = g.nodes() == 1 ? l.intra_Bps : server_Bps(g, l, channels);
  const double part = bytes / (2.0 * channels);
  const double piece = std::min(
      part, static_cast<double>(tree_piece(static_cast<std::uint64_t>(part), g, pipeline, smallest)));
  // Up and down the tree, each hop paying its latency and one piece's time to
  // fill the pipeline; in steady state a server's busiest NIC moves 2S/c.
  const double latency = 2 * (chain * l.intra_latency_s + levels * l.inter_latency_s);
  double fill = 2 * chain * piece / (l.intra_Bps > 0 ? l.intra_Bps : bw);
  if (levels > 0) fill += 2 * levels * piece / l.inter_Bps;
  return latency + fill + 2 * bytes / bw;
}

double hierarchical_estimate(const Group& g, const GroupLinks& l, double bytes) {
  const double k = g.max_per_node();
  const double m = g.nodes();
  double t = 0;
  if (k > 1) t += 2 * (k - 1) * l.intra_latency_s + 2 * (k - 1) / k * bytes / l.intra_Bps;
  if (m > 1) t += 2 * (m - 1) * l.inter_latency_s + 2 * (m - 1) / m * bytes / (l.inter_Bps * std::min<double>(l.rails, k));
  return t;
}

}  // namespace

double all_reduce_estimate(Algo algo, const Group& group, const GroupLinks& links, std::uint64_t bytes,
                           int channels, std::uint64_t pipeline_bytes, std::uint64_t smallest) {
  const auto s = static_cast<double>(bytes);
  switch (algo) {
    case Algo::ring: return group.size() == 1 ? 0 : ring_estimate(group, links, s, channels);
    case Algo::tree: return group.size() == 1 ? 0 : tree_estimate(group, links, s, channels, pipeline_bytes, smallest);
    case Algo::hierarchical: return group.regular() ? hierarchical_estimate(group, links, s) : inf();
    default: return inf();
  }
}

namespace {

// Why a forced algorithm cannot run an op it is made for, for the error.
const char* unavailable_why(Op op, Algo algo) {
  const bool gather = op == Op::all_gather || op == Op::reduce_scatter;
  const bool made_for = algo == Algo::pat              ? gather
                        : algo == Algo::collnet_direct ? gather || op == Op::all_reduce
                                                       : op == Op::all_reduce;
  if (!made_for) return "";
  switch (algo) {
    case Algo::hierarchical: return " (hierarchical needs the same local GPUs on every server of the group)";
    case Algo::nvls:
      return " (nvls needs hardware.nccl.nvls: true, NCCL's cost model and all of the group in one server)";
    case Algo::nvls_tree:
      return " (nvls_tree needs hardware.nccl.nvls: true, NCCL's cost model and more than one server, with at "
             "least 2 GPUs of the group on each)";
    case Algo::collnet_direct:
    case Algo::collnet_chain:
      return gather ? " (collnet_direct needs hardware.nccl.collnet: true, NCCL's cost model, more than one server and "
                      "at most one GPU of the group per NIC)"
                    : " (collnet needs hardware.nccl.collnet: true, NCCL's cost model and more than one server)";
    case Algo::pat:
      return " (pat needs hardware.nccl.pat, NCCL's cost model and one GPU of the group on each of several servers)";
    default: return "";
  }
}

}  // namespace

Algo choose_algo(const Request& request, const Group& group, const GroupLinks& links, const CollectiveConfig& config) {
  const NcclParams* nccl = config.nccl_costs ? &config.nccl : nullptr;
  // CollNet's all-gather / reduce-scatter needs every GPU of a server to be a
  // head (NCCL: 1:1 GPU:NIC), which only the links know.
  const bool gather = request.op == Op::all_gather || request.op == Op::reduce_scatter;
  const bool nic_short =
      gather && request.algo == Algo::collnet_direct && group.max_per_node() > nccl_heads(group, links);
  if (nic_short || !available(request.op, request.algo, group, nccl)) {
    std::string choices;
    for (Algo a : {Algo::ring, Algo::tree, Algo::hierarchical, Algo::direct, Algo::nvls, Algo::nvls_tree,
                   Algo::collnet_direct, Algo::collnet_chain, Algo::pat}) {
      if (available(request.op, a, group, nccl) && !(nic_short && a == Algo::collnet_direct))
        choices += std::string(to_string(a)) + ", ";
    }
    choices.replace(choices.size() - 2, 2, " or auto");  // every op has at least one algorithm
    throw ConfigError(std::string("algorithm: expected ") + choices + " for " + to_string(request.op) +
                      unavailable_why(request.op, request.algo) + ", found " + to_string(request.algo));
  }
  if (request.algo != Algo::automatic) return request.algo;
  if (config.nccl_costs) return nccl_algo(request, group, links, config.nccl);
  switch (request.op) {
    case Op::all_reduce: break;
    case Op::all_gather:
    case Op::reduce_scatter:
    case Op::broadcast: return Algo::ring;
    default: return Algo::direct;
  }
  const int channels = channel_count(config, group, links);
  Algo best = Algo::ring;
  double best_time = all_reduce_estimate(Algo::ring, group, links, request.bytes, channels, config.pipeline_bytes);
  std::array<Algo, 2> others{Algo::tree, Algo::hierarchical};
  for (Algo a : others) {
    if (a == Algo::tree && group.nodes() < 2) continue;
    if (a == Algo::hierarchical && (group.nodes() < 2 || group.max_per_node() < 2)) continue;
    const double t = all_reduce_estimate(a, group, links, request.bytes, channels, config.pipeline_bytes);
    if (t < best_time) {
      best = a;
      best_time = t;
    }
  }
  return best;
}

}  // namespace pf::models::collective
