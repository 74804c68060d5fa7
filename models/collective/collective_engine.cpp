#include "models/collective/collective_engine.h"

#include <string>

#include "core/error.h"

namespace pf::models::collective {

CollectiveEngine::CollectiveEngine(network::Network& net, const GroupTable& groups, CollectiveConfig config)
    : net_(net), groups_(groups), config_(config), per_gpu_(static_cast<std::size_t>(net.graph().gpu_count())) {}

Algo CollectiveEngine::resolve(const Request& request) const {
  if (request.group >= groups_.size())
    throw SimulationError("collective: group " + std::to_string(request.group) + " is not registered");
  return choose_algo(request, groups_.group(request.group), groups_.links(request.group), config_);
}

int CollectiveEngine::channels(GroupIndex group) const {
  return channel_count(config_, groups_.group(group), groups_.links(group));
}

std::size_t CollectiveEngine::find(int gpu, const StateKey& key) const {
  const std::vector<CollectiveState>& states = per_gpu_[static_cast<std::size_t>(gpu)];
  std::size_t i = 0;
  while (i < states.size() && !(states[i].key() == key)) ++i;
  return i;
}

std::size_t CollectiveEngine::find_or_add(int gpu, const StateKey& key) {
  std::vector<CollectiveState>& states = per_gpu_[static_cast<std::size_t>(gpu)];
  const std::size_t i = find(gpu, key);
  if (i == states.size()) states.emplace_back(key);
  return i;
}

Completion CollectiveEngine::finish(int gpu, std::size_t index) {
  std::vector<CollectiveState>& states = per_gpu_[static_cast<std::size_t>(gpu)];
  Completion c{true, gpu, states[index].cookie(), states[index].not_before()};
  if (index + 1 != states.size()) states[index] = std::move(states.back());
  states.pop_back();
  return c;
}

Completion CollectiveEngine::start(core::LpContext& engine, int gpu, const Request& request, std::uint64_t cookie) {
  const Algo algo = resolve(request);
  const Group& group = groups_.group(request.group);
  if (group.member_index(gpu) < 0)
    throw SimulationError("collective: GPU " + std::to_string(gpu) + " is not a member of group " +
                          std::to_string(request.group));
  const bool p2p = request.op == Op::send || request.op == Op::recv;
  if (p2p && (request.peer < 0 || request.peer == gpu || group.member_index(request.peer) < 0))
    throw SimulationError("collective: " + std::string(to_string(request.op)) + " on GPU " + std::to_string(gpu) +
                          " needs a peer in group " + std::to_string(request.group) + ", found " +
                          std::to_string(request.peer));
  const Role role = request.op == Op::send ? Role::send : request.op == Op::recv ? Role::recv : Role::collective;
  const StateKey key{request.group, static_cast<std::uint16_t>(request.seq), role, p2p ? request.peer : -1};
  const std::size_t i = find_or_add(gpu, key);
  CollectiveState& state = per_gpu_[static_cast<std::size_t>(gpu)][i];
  StepCost cost;
  if (config_.nccl_costs) cost = step_cost(request, algo, group, groups_.links(request.group), config_.nccl, config_.pipeline_bytes);
  const bool done = state.start(request, algo, cookie, group, channels(request.group), config_,
                                config_.nccl_costs ? &cost : nullptr, context(engine, gpu, key));
  if (done) return finish(gpu, i);
  return {};
}

Completion CollectiveEngine::on_delivery(core::LpContext& engine, const network::Delivery& d) {
  const bool p2p = d.tag.phase == kPeerPhase;
  const StateKey key{d.tag.group, d.tag.seq, p2p ? Role::recv : Role::collective, p2p ? d.src_gpu : -1};
  const std::size_t i = find_or_add(d.dst_gpu, key);
  CollectiveState& state = per_gpu_[static_cast<std::size_t>(d.dst_gpu)][i];
  if (!state.started()) {
    state.arrive_early(d.tag, d.src_gpu);
    return {};
  }
  if (state.receive(d.tag, d.src_gpu, context(engine, d.dst_gpu, key))) return finish(d.dst_gpu, i);
  return {};
}

Completion CollectiveEngine::on_port_free(core::LpContext& engine, const PortFree& p) {
  const int gpu = static_cast<int>(engine.current_lp());
  const std::size_t i = find(gpu, p.key);
  // A run may finish before its last message has left the port.
  if (i == per_gpu_[static_cast<std::size_t>(gpu)].size()) return {};
  if (per_gpu_[static_cast<std::size_t>(gpu)][i].port_free(p.phase, p.channel, context(engine, gpu, p.key)))
    return finish(gpu, i);
  return {};
}

}  // namespace pf::models::collective
