// Collectives of groups that span servers, in closed form (analytical network,
// simulation.inter_server: analytical).
//
// The analytical network already prices every message as latency + bytes over
// the path's bottleneck with no sharing beyond the sender's port and the NICs'
// static share, i.e. on idle paths. On idle paths a collective takes what
// NCCL's cost model predicts for its group (collective::idle_time_s: the
// chosen algorithm and protocol, NCCL's latencies, the payload at NCCL's bus
// bandwidth over the group's links, NVLink inside and the NIC path between
// servers, capped by the NIC share), so it is priced that way from the moment
// its last member joins, as ServerCollectives does inside a server: one event
// per member pair instead of ~3 per ring step and member. What this leaves out
// against the message-level collectives: a collective's messages queueing
// behind other traffic on the same GPU port (a pipeline send, another
// group's collective), which the analytical network's sender-port model
// prices and this does not.
//
// The members may live on different MPI ranks, so the rendezvous is by
// events: a member that joins sends MemberJoined (its join time) to every
// other simulated member, arriving the path's latency later (never earlier
// than the engine's lookahead promises, as a message on that path). Each
// member completes the call at
//
//     last join + max(duration, L) + communication overhead
//
// where L bounds every member-to-member latency of the group (the largest
// latency from its first member to any other and back: the fabric's
// latencies are a tree metric), so every join has arrived by then; on any
// real fabric the duration exceeds L by far. Every member completes at the
// same time, which is what replica folding (replica_folding.h) needs: only
// simulated members join, and a folded member's join is its representative's.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/lp_context.h"
#include "core/sim_time.h"
#include "models/collective/algorithm_choice.h"
#include "models/collective/group_table.h"
#include "models/training/duration_memo.h"
#include "models/training/training_events.h"
#include "models/workload/op.h"

namespace pf::models::training {

class CrossServerCollectives {
 public:
  // handled[g]: whether dense group g is timed here (it spans servers and the
  // run asked for it); simulated[gpu]: whether the GPU runs its program (all,
  // unless replicas are folded). Throws pf::SimulationError for mis-sized
  // vectors.
  CrossServerCollectives(const collective::GroupTable& table, const collective::CollectiveConfig& config,
                         std::vector<std::uint8_t> handled, const std::vector<std::uint8_t>& simulated);

  bool handles(std::uint32_t group) const { return group < handled_.size() && handled_[group] != 0; }
  // Predicted duration from the last member's join, seconds (before the latency bound).
  double duration_s(std::uint32_t group, workload::Collective op, std::uint64_t bytes) const;
  core::SimTime latency_bound(std::uint32_t group) const { return bound_[group]; }

  // Member `gpu` joins collective `seq` of `group` with its op `op_id`.
  void arrive(core::LpContext& engine, std::uint32_t group, std::uint32_t seq, workload::Collective op,
              std::uint64_t bytes, int gpu, std::uint32_t op_id, core::SimTime overhead);
  // Another member's join reached member engine.current_lp().
  void on_joined(core::LpContext& engine, const MemberJoined& joined, core::SimTime overhead);

 private:
  // One member's view of its group's current collective.
  struct Rendezvous {
    std::uint32_t seq = 0;
    int joined = 0;                 // members whose join is known here (this one included once it joined)
    bool own = false;               // this member has joined
    std::uint32_t op_id = 0;        // this member's op
    workload::Collective op = workload::Collective::none;
    std::uint64_t bytes = 0;
    core::SimTime last;             // latest join so far
  };
  Rendezvous& rendezvous(std::uint32_t group, int gpu, std::uint32_t seq);
  void complete_if_ready(core::LpContext& engine, std::uint32_t group, int gpu, Rendezvous& r, core::SimTime overhead);

  const collective::GroupTable& table_;
  collective::CollectiveConfig config_;
  std::vector<std::uint8_t> handled_;
  std::vector<std::vector<int>> simulated_members_;  // per dense group (handled ones only)
  std::vector<core::SimTime> bound_;                 // per dense group: L above
  std::vector<collective::GroupLinks> links_;        // per dense group: NIC share applied
  std::vector<std::uint8_t> one_port_;               // per dense group: server and remote peers share the first port
  std::vector<DurationMemo> memo_;                   // per dense group (this rank's members share it)
  std::unordered_map<std::uint64_t, Rendezvous> state_;  // (group, gpu) of this rank's members
};

}  // namespace pf::models::training
