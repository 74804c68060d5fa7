// The LP model behind `preflight collective`: the network's LPs plus GPU LPs
// that each start one collective at time zero and record when they finish.
// It is also the smallest complete user of the collective layer: a GPU model
// routes the network's and the collective layer's events the same way.
#pragma once

#include <cstdint>

#include "core/lp_context.h"
#include "models/collective/collective_engine.h"
#include "models/network/network.h"

namespace pf::models::collective {

class BenchModel {
 public:
  struct Start {};  // a member GPU starts the collective
  using Events = network::NetworkEvents::with<PortFree, Start>;

  BenchModel(network::Network& net, CollectiveEngine& collectives, const Request& request, const Group& group);

  // Schedules the start on every member GPU this rank owns.
  void seed(core::LpContext& engine);
  void on_event(core::LpContext& engine, const core::Event& event);

  // This rank's members: the latest completion and how many completed.
  core::SimTime last_completion() const { return last_; }
  std::uint64_t completions() const { return completions_; }

 private:
  void record(const core::LpContext& engine, const Completion& c);

  network::Network& net_;
  CollectiveEngine& collectives_;
  Request request_;
  const Group& group_;
  core::SimTime last_;
  std::uint64_t completions_ = 0;
};

}  // namespace pf::models::collective
