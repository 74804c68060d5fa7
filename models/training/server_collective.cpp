#include "models/training/server_collective.h"

#include <string>

#include "core/error.h"
#include "models/training/gpu_executor.h"

namespace pf::models::training {

ServerCollectives::ServerCollectives(const collective::GroupTable& table, const collective::CollectiveConfig& config)
    : table_(table), config_(config), servers_(table.size(), 0), expected_(table.size(), 0), waiting_(table.size()) {
  for (std::size_t i = 0; i < table.size(); ++i) {
    const auto& g = table.group(static_cast<collective::GroupIndex>(i));
    const auto& links = table.links(static_cast<collective::GroupIndex>(i));
    servers_[i] = g.nodes() == 1 && g.size() > 1 && links.intra_Bps > 0 ? 1 : 0;
    expected_[i] = g.size();
  }
}

void ServerCollectives::set_simulated(const std::vector<std::uint8_t>& simulated) {
  for (std::size_t i = 0; i < table_.size(); ++i) {
    int n = 0;
    for (int m : table_.group(static_cast<collective::GroupIndex>(i)).members())
      n += simulated[static_cast<std::size_t>(m)] != 0 ? 1 : 0;
    expected_[i] = n;
  }
}

double ServerCollectives::duration_s(std::uint32_t group, workload::Collective op, std::uint64_t bytes) const {
  const auto& links = table_.links(group);
  if (config_.nccl_costs) {
    collective::Request r;
    r.op = collective_op(op);
    r.bytes = bytes;
    r.group = group;
    const collective::Group& g = table_.group(group);
    return collective::idle_time_s(r, collective::choose_algo(r, g, links, config_), g, links, config_.nccl,
                                   config_.pipeline_bytes);
  }
  const double n = table_.group(group).size();
  const double s = static_cast<double>(bytes), b = links.intra_Bps, a = links.intra_latency_s;
  switch (op) {
    case workload::Collective::all_reduce: return 2 * (n - 1) / n * s / b + 2 * (n - 1) * a;
    case workload::Collective::all_gather:
    case workload::Collective::reduce_scatter: return (n - 1) / n * s / b + (n - 1) * a;
    case workload::Collective::all_to_all: return (n - 1) / n * s / b + a;
    case workload::Collective::ring_exchange: return s / b + a;
    default: break;
  }
  throw SimulationError("training: no closed form for this collective inside a server");
}

void ServerCollectives::arrive(core::LpContext& engine, std::uint32_t group, std::uint32_t seq, workload::Collective op,
                               std::uint64_t bytes, int gpu, std::uint32_t op_id, core::SimTime overhead) {
  Waiting& w = waiting_[group];
  if (w.members.empty()) w.seq = seq;
  if (w.seq != seq)
    throw SimulationError("training: GPU " + std::to_string(gpu) + " joined collective " + std::to_string(seq) +
                          " of group " + std::to_string(group) + " while collective " + std::to_string(w.seq) +
                          " is still gathering its members");
  w.members.emplace_back(gpu, op_id);
  if (static_cast<int>(w.members.size()) < expected_[group]) return;
  const core::SimTime done =
      engine.now() + core::SimTime::from_seconds(w.memo.seconds(op, bytes, [&] { return duration_s(group, op, bytes); })) + overhead;
  for (const auto& [member, id] : w.members) {
    if (!engine.is_local(static_cast<core::LpId>(member)))
      throw SimulationError("training: server group " + std::to_string(group) + " is split across MPI ranks");
    if (quiet_) {
      engine.send_quiet_to(done, static_cast<core::LpId>(member), CommDone{id});
      scheduled_.push_back({member, id, done});
    } else {
      engine.send(done, static_cast<core::LpId>(member), CommDone{id});
    }
  }
  w.members.clear();
}

}  // namespace pf::models::training
