// Which algorithm a collective runs, and with how many channels.
//
// The automatic choice works as NCCL's tuner does (src/graph/tuning.cc in
// github.com/NVIDIA/nccl): every algorithm available for the operation and the
// group gets a predicted time, latency + bytes / bandwidth, from the group's
// link figures, and the fastest wins (ties go to the ring). For all-reduce the
// candidates are ring, tree (with more than one server) and hierarchical (more
// than one server and more than one GPU on each, same local GPUs everywhere);
// the predictions are those of the simulated algorithms on idle links
// (models/network/README.md derives them). The outcome matches NCCL's
// behaviour: trees for small and medium messages across many servers (their
// latency grows with log(servers) instead of the ring's 2(n-1) hops), rings
// inside a server and for large messages. The other operations have one
// algorithm each: ring for all-gather, reduce-scatter and broadcast (a
// pipelined chain), direct for all-to-all and send/recv.
#pragma once

#include <cstdint>

#include "models/collective/collective_types.h"
#include "models/collective/group.h"
#include "models/collective/group_table.h"

namespace pf::models::collective {

struct CollectiveConfig {
  int channels = 0;  // rings/trees run side by side; 0 = one per NIC rail of a server (1 inside one server)
  std::uint64_t pipeline_bytes = 1 << 20;  // largest pipelined piece of a tree or chain: simulation.chunk_bytes
};

inline constexpr int kMaxChannels = 32;

int channel_count(const CollectiveConfig& config, const Group& group, const GroupLinks& links);

// The pipelined piece for `part` bytes flowing through `depth` hops: halved
// from `max_bytes` while fewer than 4 pieces per hop would be in flight, down
// to 64 KiB (NCCL shrinks its tree chunk size the same way for small
// messages, src/enqueue.cc), so a pipeline fills quickly.
std::uint64_t pipeline_piece(std::uint64_t part, int depth, std::uint64_t max_bytes);

// Hops from a tree's leaves to its root: the chain inside a server plus the
// deeper of the two trees over servers.
int tree_pipeline_depth(const Group& group);

bool available(Op op, Algo algo, const Group& group);

// Predicted all-reduce time on idle links, seconds.
double all_reduce_estimate(Algo algo, const Group& group, const GroupLinks& links, std::uint64_t bytes,
                           int channels, std::uint64_t pipeline_bytes);

// The algorithm a request runs. Throws pf::ConfigError naming the choices
// when an explicitly requested one is not available for the op and group.
Algo choose_algo(const Request& request, const Group& group, const GroupLinks& links, const CollectiveConfig& config);

}  // namespace pf::models::collective
