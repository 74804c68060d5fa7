#include "models/collective/bench_model.h"

#include <algorithm>

namespace pf::models::collective {

BenchModel::BenchModel(network::Network& net, CollectiveEngine& collectives, const Request& request,
                       const Group& group)
    : net_(net), collectives_(collectives), request_(request), group_(group) {}

void BenchModel::seed(core::Engine& engine) {
  for (int gpu : group_.members()) {
    if (engine.is_local(static_cast<core::LpId>(gpu)))
      engine.schedule_initial(core::SimTime::zero(), static_cast<core::LpId>(gpu), kStart, core::NoPayload{});
  }
}

void BenchModel::record(const core::Engine& engine, const Completion& c) {
  if (!c.done) return;
  last_ = std::max(last_, engine.now());
  ++completions_;
}

void BenchModel::on_event(core::Engine& engine, const core::Event& event) {
  switch (event.kind) {
    case network::kChunkArrival: net_.forward(engine, event); return;
    case network::kDelivery: record(engine, collectives_.on_delivery(engine, network::Network::delivery(event))); return;
    case kPortFree: record(engine, collectives_.on_port_free(engine, event)); return;
    case kStart:
      record(engine, collectives_.start(engine, static_cast<int>(engine.current_lp()), request_, 0));
      return;
    default: engine.fail("collective bench: unknown event kind " + std::to_string(event.kind));
  }
}

}  // namespace pf::models::collective
