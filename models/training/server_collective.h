// Collectives of groups that live inside one server, in closed form.
//
// Inside a server every GPU reaches the NVSwitch over its own NVLink port and
// the switch does not block, so a collective of a group that fits a server is
// limited by the members' ports alone: its time from the moment the last
// member joins is what the message-by-message simulation of the same ring
// gives when the ports carry nothing else (collective::idle_time_s: NCCL's
// latencies and protocol overhead, models/collective/nccl_cost.h; with
// simulation.collective_model links, the ring's 2(n-1)/n S/B + 2(n-1) a and
// so on, B the NVLink bandwidth per direction and a the GPU-switch-GPU
// latency). tests/mpi/training checks the two agree, at two events per
// member instead of ~3 per ring step.
//
// The members of such a group are always simulated by one MPI rank (the
// partitioner never splits a server), so their rendezvous is plain shared
// state on that rank, touched in the engine's deterministic event order.
#pragma once

#include <cstdint>
#include <vector>

#include "core/lp_context.h"
#include "models/collective/algorithm_choice.h"
#include "models/collective/group_table.h"
#include "models/training/duration_memo.h"
#include "models/training/training_events.h"
#include "models/workload/op.h"

namespace pf::models::training {

class ServerCollectives {
 public:
  // Marks which dense groups of `table` lie inside one server.
  ServerCollectives(const collective::GroupTable& table, const collective::CollectiveConfig& config);

  bool handles(std::uint32_t group) const { return servers_[group] != 0; }
  // Only the GPUs flagged run their programs (replica folding): a group's
  // collective completes once its simulated members have joined.
  void set_simulated(const std::vector<std::uint8_t>& simulated);
  // Predicted duration from the last member's arrival, seconds.
  double duration_s(std::uint32_t group, workload::Collective op, std::uint64_t bytes) const;

  // Member `gpu` joins collective `seq` of `group` with its op `op_id`. When
  // the last member joins, every member gets CommDone (its op id)
  // at now + duration + overhead.
  void arrive(core::LpContext& engine, std::uint32_t group, std::uint32_t seq, workload::Collective op,
              std::uint64_t bytes, int gpu, std::uint32_t op_id, core::SimTime overhead);

  // Dynamic lookahead (core/promise_board.h): the completions go out as
  // quiet events, and each is kept until the model has told the member's
  // executor and stated the member's promise (TrainingModel::on_event).
  struct Scheduled {
    int gpu = 0;
    std::uint32_t op = 0;
    core::SimTime at;
  };
  void set_quiet(bool quiet) { quiet_ = quiet; }
  std::vector<Scheduled>& scheduled() { return scheduled_; }

 private:
  struct Waiting {
    std::uint32_t seq = 0;
    std::vector<std::pair<int, std::uint32_t>> members;  // (gpu, op id) joined so far
    DurationMemo memo;
  };
  const collective::GroupTable& table_;
  collective::CollectiveConfig config_;
  std::vector<std::uint8_t> servers_;  // per dense group: 1 when it lies inside one server
  std::vector<int> expected_;          // per dense group: members that join (all unless folded)
  std::vector<Waiting> waiting_;       // per dense group
  bool quiet_ = false;
  std::vector<Scheduled> scheduled_;
};

}  // namespace pf::models::training
