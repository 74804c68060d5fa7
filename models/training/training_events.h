// The training model's own events. Each kind is its payload's type
// (core/event_kind.h); TrainingEvents is every event a GPU, NIC or switch LP
// of a training run handles, checked at compile time for distinct kinds.
#pragma once

#include <cstdint>

#include "core/event_kind.h"
#include "models/collective/collective_events.h"
#include "models/network/message.h"

namespace pf::models::training {

struct GpuStart {};  // a GPU begins its program

struct ComputeDone {
  std::uint32_t op = 0;     // the op's id in its GPU's program
  std::uint32_t token = 0;  // KernelProgress::token() when scheduled (an older one is stale)
};

struct CommDone {  // a collective, send or receive has finished on this GPU
  std::uint32_t op = 0;
};

struct HostIssued {  // the host has issued the op: its issue time was reached
  std::uint32_t op = 0;
};

// A member of a collective timed across servers in closed form has joined
// (cross_server_collective.h; sent to the group's other simulated members).
struct MemberJoined {
  std::uint32_t group = 0;  // dense collective group index
  std::uint32_t seq = 0;    // the collective's sequence number in its group
  std::int64_t join_ps = 0;
};

using TrainingEvents =
    network::NetworkEvents::with<collective::PortFree, GpuStart, ComputeDone, CommDone, HostIssued, MemberJoined>;

}  // namespace pf::models::training
