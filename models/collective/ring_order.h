// Where a GPU sits in the rings a collective runs over.
//
// Channel rings follow NCCL's layout on multi-NIC servers: a ring crosses each
// server once, entering and leaving it through GPUs with the same local index
// as its neighbours so that the hop between servers stays on one rail (NCCL
// builds its rings from the topology search in src/graph/search.cc, which
// prefers rings whose inter-node hops connect the same NIC index). Here server
// j's members are visited starting at index c (the channel), and every other
// server is visited backwards (a snake), so the exit GPU of one server and the
// entry GPU of the next share a local index. With an odd number of servers the
// wrap-around hop changes rail. Different channels start at different GPUs, so
// c channels leave each server through c different NICs.
#pragma once

#include "models/collective/group.h"

namespace pf::models::collective {

struct RingSeat {
  int prev = -1;      // GPU that sends to this one
  int next = -1;      // GPU this one sends to
  int position = 0;   // 0..ring size-1
};

// Channel `channel`'s ring over the whole group.
RingSeat channel_ring(const Group& g, int channel, int gpu);
// The ring over the members on the GPU's own server.
RingSeat node_ring(const Group& g, int gpu);
// The ring over the members with the GPU's index on every server (its rail);
// needs a regular group.
RingSeat rail_ring(const Group& g, int gpu);

}  // namespace pf::models::collective
