// The collective layer inside the GPU LPs: start collective X on group G with
// S bytes, get told when this GPU's part is done.
//
// A GPU model owns one CollectiveEngine and routes two kinds of events to it
// (the network's ChunkArrival goes to the network):
//
//     case core::kind_of<network::MessageDelivered>:
//       done = coll.on_delivery(engine, network::Network::delivery(ev.as<network::MessageDelivered>())); break;
//     case core::kind_of<collective::PortFree>: done = coll.on_port_free(engine, ev.as<PortFree>()); break;
//     ... and, when its program reaches a collective: done = coll.start(engine, gpu, request, cookie);
//     if (done.done) resume(done.gpu, done.cookie);
//
// Every member of the group calls start() with the same request (op, algo,
// bytes, seq, root); each GPU's state lives only on that GPU's LP, so the
// layer runs the same on any rank count. A GPU may take part in any number of
// collectives at once (distinct (group, seq)); no allocation happens per event.
#pragma once

#include <cstdint>
#include <vector>

#include "core/lp_context.h"
#include "models/collective/algorithm_choice.h"
#include "models/collective/collective_events.h"
#include "models/collective/collective_state.h"
#include "models/collective/collective_types.h"
#include "models/collective/group_table.h"
#include "models/network/network.h"

namespace pf::models::collective {

// A GPU's part of a collective has finished.
struct Completion {
  bool done = false;
  int gpu = -1;
  std::uint64_t cookie = 0;  // what the caller passed to start()
  // The part counts as complete at max(now, not_before): NCCL's predicted
  // time from the GPU's start (collective_state.h).
  core::SimTime not_before;
};

class CollectiveEngine {
 public:
  CollectiveEngine(network::Network& net, const GroupTable& groups, CollectiveConfig config);

  // The algorithm a request will run (throws pf::ConfigError when an explicit
  // one is unavailable: check requests up front, before the engine runs).
  Algo resolve(const Request& request) const;
  int channels(GroupIndex group) const;
  const CollectiveConfig& config() const { return config_; }

  // From GPU `gpu`'s handler.
  Completion start(core::LpContext& engine, int gpu, const Request& request, std::uint64_t cookie);
  Completion on_delivery(core::LpContext& engine, const network::Delivery& delivery);
  Completion on_port_free(core::LpContext& engine, const PortFree& p);

  // Collectives under way on a GPU (started or with early messages).
  std::size_t active(int gpu) const { return per_gpu_[static_cast<std::size_t>(gpu)].size(); }

 private:
  std::size_t find_or_add(int gpu, const StateKey& key);
  std::size_t find(int gpu, const StateKey& key) const;  // states(gpu).size() when absent
  Completion finish(int gpu, std::size_t index);
  SendContext context(core::LpContext& engine, int gpu, const StateKey& key) {
    return SendContext{engine, net_, scratch_, gpu, key};
  }

  network::Network& net_;
  const GroupTable& groups_;
  CollectiveConfig config_;
  std::vector<std::vector<CollectiveState>> per_gpu_;
  std::vector<network::Message> scratch_;
};

}  // namespace pf::models::collective
