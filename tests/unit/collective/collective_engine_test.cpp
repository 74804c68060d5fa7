// The CollectiveEngine API as a GPU model uses it: collectives on arbitrary
// groups, several at once on one GPU, members starting at different times,
// point-to-point pairs whose receive is posted after the data arrived.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "core/error.h"
#include "models/collective/collective_engine.h"
#include "models/network/network_lookahead.h"
#include "models/network/routing.h"
#include "tests/unit/network/test_cluster.h"

namespace pf {
namespace {

using namespace models::collective;
using core::SimTime;

struct Step {
  int gpu;
  SimTime at;
  Request request;
};

// GPUs start scripted requests at given times and record completions.
class ScriptModel {
 public:
  struct Go {
    std::uint32_t step = 0;  // index into the script
  };

  ScriptModel(const models::network::ClusterGraph& g, models::NetworkMode mode) : graph_(g), mode_(mode), groups_(g) {}

  GroupTable& groups() { return groups_; }

  // Completion time of each step (by index).
  std::vector<SimTime> run(std::vector<Step> script) {
    script_ = std::move(script);
    done_.assign(script_.size(), SimTime::infinity());
    net_ = std::make_unique<models::network::Network>(graph_, test::net_config(mode_));  // idle links
    // The links alone (no NCCL latencies): the expected times are the wire's.
    CollectiveConfig config;
    config.nccl_costs = false;
    collectives_ = std::make_unique<CollectiveEngine>(*net_, groups_, config);
    const partition::RankMapping m = models::network::partition_cluster(graph_, 1, partition::Strategy::block);
    core::Engine engine(core::Communicator::local(), m.vertex_rank,
                        models::network::engine_config(graph_, m, mode_, models::SyncMode::window));
    for (std::size_t i = 0; i < script_.size(); ++i)
      engine.schedule_initial(script_[i].at, static_cast<core::LpId>(script_[i].gpu), Go{std::uint32_t(i)});
    engine.run(*this);
    for (int gpu = 0; gpu < graph_.gpu_count(); ++gpu) EXPECT_EQ(collectives_->active(gpu), 0u) << "GPU " << gpu;
    return done_;
  }

  void on_event(core::LpContext& engine, const core::Event& event) {
    Completion c;
    switch (event.kind) {
      case core::kind_of<Go>: {
        const std::uint32_t i = event.as<Go>().step;
        c = collectives_->start(engine, script_[i].gpu, script_[i].request, i);
        break;
      }
      case core::kind_of<models::network::ChunkArrival>:
        net_->forward(engine, event.as<models::network::ChunkArrival>());
        return;
      case core::kind_of<models::network::MessageDelivered>:
        c = collectives_->on_delivery(engine,
                                      models::network::Network::delivery(event.as<models::network::MessageDelivered>()));
        break;
      case core::kind_of<PortFree>: c = collectives_->on_port_free(engine, event.as<PortFree>()); break;
      default: FAIL() << "unexpected event kind " << event.kind;
    }
    if (c.done) done_[c.cookie] = engine.now();
  }

 private:
  const models::network::ClusterGraph& graph_;
  models::NetworkMode mode_;
  GroupTable groups_;
  std::unique_ptr<models::network::Network> net_;
  std::unique_ptr<CollectiveEngine> collectives_;
  std::vector<Step> script_;
  std::vector<SimTime> done_;
};

models::network::ClusterGraph four_servers() {
  return models::network::build_cluster(test::server(8, 8), test::fabric(models::TopologyKind::rail_optimized, 4, 2));
}

Request request(Op op, Algo algo, GroupIndex group, std::uint64_t bytes, std::uint32_t seq = 0) {
  Request r;
  r.op = op;
  r.algo = algo;
  r.group = group;
  r.bytes = bytes;
  r.seq = seq;
  return r;
}

std::vector<Step> everyone(const Group& g, const Request& r, SimTime at = SimTime::zero()) {
  std::vector<Step> s;
  for (int gpu : g.members()) s.push_back({gpu, at, r});
  return s;
}

class IrregularGroup : public ::testing::TestWithParam<models::NetworkMode> {};

TEST_P(IrregularGroup, EveryOperationCompletesOnEveryMember) {
  const models::network::ClusterGraph g = four_servers();
  ScriptModel model(g, GetParam());
  const GroupIndex gi = model.groups().add({26, 0, 1, 2, 9, 10, 17, 25});  // 3, 2, 1 and 2 per server
  const Group& group = model.groups().group(gi);
  for (Op op : {Op::all_reduce, Op::all_gather, Op::reduce_scatter, Op::all_to_all, Op::broadcast, Op::send_recv}) {
    for (Algo algo : {Algo::automatic, Algo::ring, Algo::tree, Algo::direct}) {
      if (!available(op, algo, group)) continue;
      Request r = request(op, algo, gi, 3 << 20);
      r.root = 3;
      const std::vector<SimTime> done = model.run(everyone(group, r));
      for (SimTime t : done) EXPECT_FALSE(t.is_infinite()) << to_string(op) << "/" << to_string(algo);
      // Only a broadcast root is done as soon as it has queued its data.
      const auto at_zero = std::count(done.begin(), done.end(), SimTime::zero());
      EXPECT_EQ(at_zero, op == Op::broadcast ? 1 : 0) << to_string(op) << "/" << to_string(algo);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, IrregularGroup,
                         ::testing::Values(models::NetworkMode::packet, models::NetworkMode::analytical));

// An all-to-all member is done when its own parts have left as well as its
// peers' arrived (NCCL's grouped send/recv returns only then). Group of 8 over
// two servers, 4 each: with the shifted peer order, each of member 0's four
// peers on the other server sends to it first, so its receives are in after
// one part's time while its own four parts to that server leave one after
// the other through its NIC. Counting arrivals alone finished it at about a
// quarter of that (the analytical network does not share a receiver's port).
class AllToAllMember : public ::testing::TestWithParam<models::NetworkMode> {};

TEST_P(AllToAllMember, FinishesNoEarlierThanItsOwnSendsLeave) {
  const models::network::ClusterGraph g = four_servers();
  ScriptModel model(g, GetParam());
  const std::vector<int> members{0, 2, 4, 6, 8, 10, 12, 14};  // servers 0 and 1
  const GroupIndex gi = model.groups().add(members);
  const std::uint64_t bytes = 8 << 20;
  const Request r = request(Op::all_to_all, Algo::direct, gi, bytes);
  const std::vector<SimTime> done = model.run(everyone(model.groups().group(gi), r));
  const double part = static_cast<double>(bytes) / static_cast<double>(members.size());
  for (std::size_t i = 0; i < members.size(); ++i) {
    models::network::Path path;  // to a peer on the other server: through the member's NIC
    models::network::route(g, members[i], members[(i + 4) % members.size()], 0, path);
    const double nic_s = 4 * part / models::network::path_stats(g, path).bottleneck_Bps;
    EXPECT_GE(done[i].seconds(), nic_s) << "member " << i << " (GPU " << members[i] << ")";
    // Idle paths priced alone: its NIC's queue is all that holds a member up.
    // (Packet mode adds the contention of the parts crossing rails.)
    if (GetParam() == models::NetworkMode::analytical) {
      EXPECT_LT(done[i].seconds(), 1.05 * nic_s) << "member " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, AllToAllMember,
                         ::testing::Values(models::NetworkMode::packet, models::NetworkMode::analytical));

TEST(CollectiveEngine, OverlappingGroupsRunAtOnce) {
  const models::network::ClusterGraph g = four_servers();
  ScriptModel model(g, models::NetworkMode::packet);
  const GroupIndex tp = model.groups().add({0, 1, 2, 3, 4, 5, 6, 7});
  const GroupIndex dp = model.groups().add({0, 8, 16, 24});
  const std::uint64_t s = 64 << 20;
  const double alone_tp = [&] {
    const auto t = model.run(everyone(model.groups().group(tp), request(Op::all_reduce, Algo::ring, tp, s)));
    return static_cast<double>(std::max_element(t.begin(), t.end())->ps);
  }();
  std::vector<Step> both = everyone(model.groups().group(tp), request(Op::all_reduce, Algo::ring, tp, s));
  const std::vector<Step> d = everyone(model.groups().group(dp), request(Op::all_reduce, Algo::ring, dp, s));
  both.insert(both.end(), d.begin(), d.end());
  const std::vector<SimTime> done = model.run(both);
  for (SimTime t : done) EXPECT_FALSE(t.is_infinite());
  // GPU 0 is in both: its NVLink port is not used by the DP ring, so the TP
  // ring is not slowed down (different ports, no shared queue).
  EXPECT_NEAR(static_cast<double>(std::max_element(done.begin(), done.begin() + 8)->ps) / alone_tp, 1.0, 0.01);
}

TEST(CollectiveEngine, LateMemberDelaysEveryone) {
  const models::network::ClusterGraph g = four_servers();
  ScriptModel model(g, models::NetworkMode::packet);
  const GroupIndex gi = model.groups().add({0, 8, 16, 24});
  std::vector<Step> steps = everyone(model.groups().group(gi), request(Op::all_reduce, Algo::ring, gi, 1 << 20));
  const std::vector<SimTime> on_time = model.run(steps);
  steps[2].at = SimTime::from_us(500.0);
  const std::vector<SimTime> late = model.run(steps);
  for (std::size_t i = 0; i < late.size(); ++i) {
    EXPECT_GT(late[i], SimTime::from_us(500.0));
    EXPECT_GT(late[i], on_time[i]);
  }
}

TEST(CollectiveEngine, ReceivePostedAfterTheDataArrivedCompletesAtOnce) {
  const models::network::ClusterGraph g = four_servers();
  ScriptModel model(g, models::NetworkMode::packet);
  const GroupIndex pp = model.groups().add({0, 8, 16, 24});
  Request send = request(Op::send, Algo::automatic, pp, 16 << 20, 7);
  send.peer = 8;
  Request recv = request(Op::recv, Algo::automatic, pp, 16 << 20, 7);
  recv.peer = 0;
  // The same tag the other way round must not be confused with it.
  Request back = request(Op::send, Algo::automatic, pp, 1 << 20, 7);
  back.peer = 0;
  Request back_recv = request(Op::recv, Algo::automatic, pp, 1 << 20, 7);
  back_recv.peer = 8;
  const SimTime posted = SimTime::from_us(5000.0);
  const std::vector<SimTime> done =
      model.run({{0, SimTime::zero(), send}, {8, posted, recv}, {8, SimTime::zero(), back}, {0, posted, back_recv}});
  const double wire = 16.0 * (1 << 20) / 25e9 * 1e12;  // at NIC speed
  EXPECT_NEAR(static_cast<double>(done[0].ps), wire, wire * 0.01);  // the sender: when its port let go
  EXPECT_EQ(done[1], posted);
  EXPECT_EQ(done[3], posted);
}

TEST(CollectiveEngine, StartingOnANonMemberIsAnError) {
  const models::network::ClusterGraph g = four_servers();
  ScriptModel model(g, models::NetworkMode::packet);
  const GroupIndex gi = model.groups().add({0, 1});
  EXPECT_THROW(model.run({{5, SimTime::zero(), request(Op::all_reduce, Algo::ring, gi, 1024)}}), SimulationError);
}

}  // namespace
}  // namespace pf
