#include "models/collective/bench_model.h"

#include <algorithm>

namespace pf::models::collective {

BenchModel::BenchModel(network::Network& net, CollectiveEngine& collectives, const Request& request,
                       const Group& group)
    : net_(net), collectives_(collectives), request_(request), group_(group) {}

void BenchModel::seed(core::LpContext& engine) {
  for (int gpu : group_.members()) {
    if (engine.is_local(static_cast<core::LpId>(gpu)))
      engine.schedule_initial(core::SimTime::zero(), static_cast<core::LpId>(gpu), Start{});
  }
}

void BenchModel::record(const core::LpContext& engine, const Completion& c) {
  if (!c.done) return;
  last_ = std::max({last_, engine.now(), c.not_before});
  ++completions_;
}

void BenchModel::on_event(core::LpContext& engine, const core::Event& event) {
  static_assert(Events::valid);
  switch (event.kind) {
    case core::kind_of<network::ChunkArrival>: net_.forward(engine, event.as<network::ChunkArrival>()); return;
    case core::kind_of<network::MessageDelivered>:
      record(engine, collectives_.on_delivery(engine, network::Network::delivery(event.as<network::MessageDelivered>())));
      return;
    case core::kind_of<PortFree>: record(engine, collectives_.on_port_free(engine, event.as<PortFree>())); return;
    case core::kind_of<Start>:
      record(engine, collectives_.start(engine, static_cast<int>(engine.current_lp()), request_, 0));
      return;
    default: engine.fail("collective bench: unknown event kind " + std::to_string(event.kind));
  }
}

}  // namespace pf::models::collective
