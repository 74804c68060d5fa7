// The vocabulary of the collective layer: operations, algorithms, requests.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pf::models::collective {

// Sizes follow nccl-tests (and models/workload/op.h): `bytes` is the
// all-reduce buffer, the gathered output of an all-gather, the input of a
// reduce-scatter, each rank's send buffer of an all-to-all, the broadcast
// buffer, the message of a send/recv.
enum class Op : std::uint8_t {
  all_reduce,
  all_gather,
  reduce_scatter,
  all_to_all,
  broadcast,
  send_recv,  // every member sends `bytes` to the next member and receives from the previous
  send,       // point to point: this GPU sends `bytes` to Request::peer
  recv,       // point to point: this GPU receives from Request::peer
};

enum class Algo : std::uint8_t {
  automatic,     // chosen per call from size and group shape (algorithm_choice.h)
  ring,          // ring (all-reduce = reduce-scatter + all-gather); broadcast: pipelined chain
  tree,          // double binary tree across servers, chains inside (all-reduce)
  hierarchical,  // reduce-scatter in servers, all-reduce across them per rail, all-gather in servers
  direct,        // every pair exchanges directly (all-to-all, send/recv)
  nvls,          // NVLink SHARP all-reduce in one server: the NVSwitches reduce and multicast
                 // (simulated as the ring's messages carrying NVLS's bytes: nccl_cost.h)
  nvls_tree,     // NVLS inside each server, double binary trees between them (all-reduce;
                 // simulated as the tree's messages carrying NVLS-tree's bytes)
  collnet_direct,  // CollNet (SHARP: the network switches reduce) with every GPU a head
  collnet_chain,   // CollNet with the server's GPUs chained to one head (both: all-reduce,
                   // simulated as the tree's messages carrying CollNet's bytes)
  pat,           // PAT, log-depth all-gather / reduce-scatter with one GPU per server
                 // (simulated as its rounds: rounds_run.h)
};

const char* to_string(Op op);
const char* to_string(Algo algo);
std::optional<Op> parse_op(std::string_view name);      // all_reduce, ... (and nccl-tests': allreduce, AllReduce, all_reduce_perf)
// ring, tree, hierarchical, direct, nvls, nvls_tree, collnet_direct, collnet_chain, pat, auto
// (NCCL_ALGO's spellings too: NVLSTree, CollnetDirect, PAT, any case).
std::optional<Algo> parse_algo(std::string_view name);
// Every algorithm name parse_algo takes, "a | b | ..." (for help and errors).
std::string algo_names();

// NCCL algorithms whose calls run the double binary tree's messages (tree,
// and NVLS-tree and CollNet carrying their own bytes: nccl_cost.h).
bool runs_as_tree(Algo algo);

// nccl-tests' bus-bandwidth factor: busbw = algbw * factor (doc/PERFORMANCE.md
// of github.com/NVIDIA/nccl-tests): 2(n-1)/n for all-reduce; (n-1)/n for
// all-gather, reduce-scatter and all-to-all; 1 for broadcast and send/recv.
double bus_factor(Op op, int members);

using GroupIndex = std::uint32_t;

// One GPU's part in one collective. Every member of the group starts the same
// (group, seq) with the same op, algo, bytes and root; p2p pairs match on
// (group, seq, peer).
struct Request {
  Op op = Op::all_reduce;
  Algo algo = Algo::automatic;
  GroupIndex group = 0;
  std::uint32_t seq = 0;    // per group, 0, 1, 2... (only its low 16 bits travel)
  std::uint64_t bytes = 0;
  int root = 0;             // broadcast: the root's member index
  int peer = -1;            // send/recv: the GPU at the other end
  // An MoE token all-to-all with DeepEP's per-server deduplication
  // (training.moe_token_dispatcher: flex): each token picks `dedup_top_k` of
  // `dedup_experts` experts spread evenly over the members and crosses to
  // another server once however many of its experts live there. 0: a plain
  // all-to-all.
  int dedup_top_k = 0;
  int dedup_experts = 0;
};

// The share of a plain top-k all-to-all's bytes to one other server that a
// deduplicating dispatch sends there: P(a token picks at least one of the
// server's experts) / (the copies a plain all-to-all sends it, top_k x
// on_server / members), with the experts picked without repetition and the
// server holding experts x on_server / members of them. 1 for top-1.
double remote_dedup_share(int top_k, int experts, int members, int on_server);

}  // namespace pf::models::collective
