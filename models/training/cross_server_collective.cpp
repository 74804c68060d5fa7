#include "models/training/cross_server_collective.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "models/collective/nccl_cost.h"
#include "models/network/routing.h"
#include "models/training/gpu_executor.h"
#include "models/training/training_events.h"

namespace pf::models::training {
namespace {

core::SimTime path_latency(const network::ClusterGraph& g, int a, int b) {
  network::Path path;
  network::route(g, a, b, 0, path);
  return network::path_stats(g, path).latency;
}

// The largest latency from the first member to any other plus the largest
// back: at least every member-to-member latency (a path between two members
// is no longer than the two paths through the first one).
core::SimTime member_latency_bound(const network::ClusterGraph& g, const collective::Group& group) {
  core::SimTime out, back;
  const int first = group.member(0);
  for (int m : group.members()) {
    if (m == first) continue;
    out = std::max(out, path_latency(g, first, m));
    back = std::max(back, path_latency(g, m, first));
  }
  return out + back;
}

// The group's figures with the inter-server bandwidth capped by the NICs'
// share (nic_share.h), as the analytical network caps every message.
collective::GroupLinks shared_links(const network::NicShare& share, const collective::Group& group,
                                    collective::GroupLinks links) {
  if (group.nodes() >= 2)
    links.inter_Bps = std::min(links.inter_Bps, share.cap_Bps(group.gpu_at(0, 0), group.gpu_at(1, 0)));
  return links;
}

// Whether a member's messages to its server and to other servers leave by
// the same port (then an all-to-all's two parts queue; otherwise they overlap).
bool one_port(const network::ClusterGraph& g, const collective::Group& group) {
  if (group.max_per_node() < 2 || group.nodes() < 2) return false;
  int node = 0;
  while (group.on_node(node) < 2) ++node;
  const int me = group.gpu_at(node, 0);
  const int other = group.gpu_at(node == 0 ? 1 : 0, 0);
  network::Path local, remote;
  network::route(g, me, group.gpu_at(node, 1), 0, local);
  network::route(g, me, other, 0, remote);
  return local.hops > 0 && remote.hops > 0 && local.links[0] == remote.links[0];
}

}  // namespace

CrossServerCollectives::CrossServerCollectives(const collective::GroupTable& table,
                                               const collective::CollectiveConfig& config,
                                               std::vector<std::uint8_t> handled,
                                               const std::vector<std::uint8_t>& simulated)
    : table_(table),
      config_(config),
      handled_(std::move(handled)),
      simulated_members_(table.size()),
      bound_(table.size()),
      links_(table.size()),
      one_port_(table.size(), 0),
      memo_(table.size()) {
  if (handled_.size() != table.size())
    throw SimulationError("training: cross-server collectives got " + std::to_string(handled_.size()) +
                          " group flags for " + std::to_string(table.size()) + " groups");
  const network::ClusterGraph& g = table.graph();
  if (simulated.size() != static_cast<std::size_t>(g.gpu_count()))
    throw SimulationError("training: cross-server collectives got " + std::to_string(simulated.size()) +
                          " GPU flags for " + std::to_string(g.gpu_count()) + " GPUs");
  const network::NicShare share(g, 0);
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (handled_[i] == 0) continue;
    const auto index = static_cast<collective::GroupIndex>(i);
    const collective::Group& group = table.group(index);
    for (int m : group.members())
      if (simulated[static_cast<std::size_t>(m)] != 0) simulated_members_[i].push_back(m);
    bound_[i] = member_latency_bound(g, group);
    links_[i] = shared_links(share, group, table.links(index));
    one_port_[i] = one_port(g, group) ? 1 : 0;
  }
}

double CrossServerCollectives::duration_s(std::uint32_t group, workload::Collective op, std::uint64_t bytes) const {
  collective::Request r;
  r.op = collective_op(op);
  r.bytes = bytes;
  r.group = group;
  const collective::Group& g = table_.group(group);
  const collective::GroupLinks& links = links_[group];
  const collective::Algo algo = collective::choose_algo(r, g, links, config_);
  if (r.op != collective::Op::all_to_all)
    return collective::idle_time_s(r, algo, g, links, config_.nccl, config_.pipeline_bytes);
  // The direct all-to-all: S/n to each peer, all at once, the peers on the
  // member's server over NVLink and the rest over its NIC path (the fullest
  // server's members have most of the first and fewest of the second).
  const collective::StepCost s = collective::step_cost(r, algo, g, links, config_.nccl, config_.pipeline_bytes);
  const double piece = static_cast<double>(bytes) / g.size() * s.wire_factor;
  const int local = g.max_per_node() - 1, remote = g.size() - g.max_per_node();
  const double local_s = links.intra_Bps > 0 ? local * piece / links.intra_Bps : 0;
  const double remote_s = remote * piece / links.inter_Bps;
  const double port_s = one_port_[group] != 0 ? local_s + remote_s : std::max(local_s, remote_s);
  return s.base.seconds() + s.inter_step.seconds() + links.inter_latency_s + port_s;
}

CrossServerCollectives::Rendezvous& CrossServerCollectives::rendezvous(std::uint32_t group, int gpu,
                                                                       std::uint32_t seq) {
  Rendezvous& r = state_[static_cast<std::uint64_t>(group) << 32 | static_cast<std::uint32_t>(gpu)];
  if (r.joined == 0 && !r.own) {
    r.seq = seq;
    r.last = core::SimTime::zero();
  }
  if (r.seq != seq)
    throw SimulationError("training: GPU " + std::to_string(gpu) + " of group " + std::to_string(group) +
                          " heard of collective " + std::to_string(seq) + " while collective " +
                          std::to_string(r.seq) + " is still gathering its members");
  return r;
}

void CrossServerCollectives::arrive(core::LpContext& engine, std::uint32_t group, std::uint32_t seq,
                                    workload::Collective op, std::uint64_t bytes, int gpu, std::uint32_t op_id,
                                    core::SimTime overhead) {
  Rendezvous& r = rendezvous(group, gpu, seq);
  r.own = true;
  r.op_id = op_id;
  r.op = op;
  r.bytes = bytes;
  ++r.joined;
  r.last = std::max(r.last, engine.now());
  const MemberJoined joined{group, seq, engine.now().ps};
  for (int m : simulated_members_[group]) {
    if (m == gpu) continue;
    engine.send(engine.now() + path_latency(table_.graph(), gpu, m), static_cast<core::LpId>(m), joined);
  }
  complete_if_ready(engine, group, gpu, r, overhead);
}

void CrossServerCollectives::on_joined(core::LpContext& engine, const MemberJoined& joined, core::SimTime overhead) {
  const auto gpu = static_cast<int>(engine.current_lp());
  Rendezvous& r = rendezvous(joined.group, gpu, joined.seq);
  ++r.joined;
  r.last = std::max(r.last, core::SimTime::from_ps(joined.join_ps));
  complete_if_ready(engine, joined.group, gpu, r, overhead);
}

void CrossServerCollectives::complete_if_ready(core::LpContext& engine, std::uint32_t group, int gpu, Rendezvous& r,
                                               core::SimTime overhead) {
  if (!r.own || r.joined < static_cast<int>(simulated_members_[group].size())) return;
  const double seconds = memo_[group].seconds(r.op, r.bytes, [&] { return duration_s(group, r.op, r.bytes); });
  const core::SimTime duration = std::max(core::SimTime::from_seconds(seconds), bound_[group]);
  engine.send(r.last + duration + overhead, static_cast<core::LpId>(gpu), CommDone{r.op_id});
  r = Rendezvous{};
}

}  // namespace pf::models::training
