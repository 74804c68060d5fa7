// Which algorithm a collective runs, and with how many channels.
//
// The automatic choice is NCCL's (nccl_cost.h): NCCL's own tuning model
// predicts ring, tree and (on NVSwitch-3 servers) NVLS all-reduce times per
// protocol and the fastest wins.
// With `nccl_costs` off (simulation.collective_model: links) collectives pay
// only their links, and the choice compares the simulated algorithms' idle
// times instead: ring, tree (more than one server) and hierarchical (more
// than one server and more than one GPU on each, same local GPUs
// everywhere), as derived in models/network/README.md. The other operations
// have one algorithm each: ring for all-gather, reduce-scatter and broadcast
// (a pipelined chain), direct for all-to-all and send/recv.
#pragma once

#include <cstdint>

#include "models/collective/collective_types.h"
#include "models/collective/group.h"
#include "models/collective/group_table.h"
#include "models/collective/nccl_cost.h"

namespace pf::models::collective {

struct CollectiveConfig {
  int channels = 0;  // rings/trees run side by side; 0 = one per NIC rail of a server (1 inside one server)
  std::uint64_t pipeline_bytes = 1 << 20;  // largest pipelined piece of a tree or chain: simulation.chunk_bytes
  bool nccl_costs = true;                  // NCCL's latencies and protocol overheads (simulation.collective_model: nccl)
  NcclParams nccl;
};

inline constexpr int kMaxChannels = 32;

int channel_count(const CollectiveConfig& config, const Group& group, const GroupLinks& links);

// The pipelined piece for `part` bytes flowing through `depth` hops: halved
// from `max_bytes` while fewer than 4 pieces per hop would be in flight, down
// to `smallest` (NCCL shrinks its tree chunk size the same way for small
// messages, src/enqueue.cc), so a pipeline fills quickly.
inline constexpr std::uint64_t kSmallestPiece = 64 * 1024;
std::uint64_t pipeline_piece(std::uint64_t part, int depth, std::uint64_t max_bytes,
                             std::uint64_t smallest = kSmallestPiece);

// A tree's piece: pipeline_piece over the tree's depth (tree_pipeline_depth).
std::uint64_t tree_piece(std::uint64_t part, const Group& group, std::uint64_t max_bytes, std::uint64_t smallest);

// The smallest pipelined piece (payload bytes) a protocol moves: one step of
// its buffer on the wire. LL's buffer is NCCL_LL_LINES_PER_THREAD (8) x 512
// threads x 16-byte lines = 64 KiB over NCCL_STEPS (8) slots, 8 KiB of wire
// bytes a step (src/include/device.h, NCCL 2.30.7), i.e. 8 KiB / wire_factor
// of payload; LL128 and Simple steps are larger than the 64 KiB floor.
std::uint64_t smallest_piece(Proto proto, double wire_factor);

// Hops from a tree's leaves to its root: the chain inside a server plus the
// deeper of the two trees over servers.
int tree_pipeline_depth(const Group& group);

// Whether `algo` can run `op` over `group`. nccl: NCCL's cost model is on and
// these are the hardware's offers (null: links only, where NCCL's own
// algorithms are not offered). NVLS: all-reduce inside one server of at least
// 2 GPUs (nccl.nvls); NVLS-tree: all-reduce over more than one server with at
// least 2 GPUs on each (nccl.nvls); CollNet direct / chain: all-reduce over
// more than one server (nccl.collnet); PAT: all-gather / reduce-scatter over
// more than one server, one GPU on each (nccl.pat).
bool available(Op op, Algo algo, const Group& group, const NcclParams* nccl = nullptr);

// Predicted all-reduce time on idle links, seconds.
// smallest: the tree's smallest pipelined piece (smallest_piece for the protocol).
double all_reduce_estimate(Algo algo, const Group& group, const GroupLinks& links, std::uint64_t bytes,
                           int channels, std::uint64_t pipeline_bytes, std::uint64_t smallest = kSmallestPiece);

// The algorithm a request runs. Throws pf::ConfigError naming the choices
// when an explicitly requested one is not available for the op and group.
Algo choose_algo(const Request& request, const Group& group, const GroupLinks& links, const CollectiveConfig& config);

}  // namespace pf::models::collective
