// Shortest up-down routes between GPUs, and the analytical view of a path.
//
// Intra-node: GPU -> NVSwitch -> GPU (2 hops). Inter-node:
//   GPU -> NIC -> leaf [-> spine [-> core -> spine] -> leaf] -> NIC -> GPU
// climbing only as high as the two GPUs' first common ancestor tier (4, 6 or 8
// hops). The only choices are which spine (one per leaf uplink) and which core
// (one per spine uplink); a path keeps spine index k from source to destination
// pod, the k-ary fat-tree wiring that topology_shape.h describes.
//
// ECMP picks them from a hash of (src GPU, dst GPU, flow id) alone, so the path
// of a flow never depends on how many MPI ranks simulate the cluster.
// single_path routing ignores the flow and picks by destination (D-mod-k, as
// InfiniBand's fat-tree routing does): the destination's port number on its
// leaf selects the spine, so distinct destinations under a leaf spread over
// distinct spines.
//
// Failed links (faults.h): ECMP hashes over the surviving branches
// only (a flow whose branch survives keeps it); single_path moves to the next
// surviving branch. The fabric is checked to be connected when the faults
// are applied, so every pair of GPUs keeps at least one path.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <type_traits>

#include "core/sim_time.h"
#include "models/network/topology.h"

namespace pf::models::network {

inline constexpr int kMaxHops = 8;

// A route as link ids, held in place: routing never allocates.
struct Path {
  std::array<LinkId, kMaxHops> links{};
  int hops = 0;

  void push(LinkId l) { links[static_cast<std::size_t>(hops++)] = l; }
  std::span<const LinkId> view() const { return {links.data(), static_cast<std::size_t>(hops)}; }
};
// Cross-pod is the longest route: GPU-NIC-leaf-spine-core-spine-leaf-NIC-GPU.
static_assert(kMaxHops == 8);
// A path may travel inside a fixed-size, cross-rank message.
static_assert(std::is_trivially_copyable_v<Path>);

// The equal-cost branch a path takes above the source leaf.
struct UplinkChoice {
  int spine = 0;  // 0 .. spines_per_pod-1
  int core = 0;   // 0 .. spine_uplinks-1 (cross-pod paths only)
};

// Mixes (src, dst, flow) into 64 well-spread bits.
std::uint64_t ecmp_hash(int src_gpu, int dst_gpu, std::uint64_t flow);

// How many shortest paths join the two GPUs (1 within a server or a leaf).
int equal_cost_paths(const ClusterGraph& g, int src_gpu, int dst_gpu);

// The branch the topology's routing mode picks for this flow.
UplinkChoice choose_uplinks(const ClusterGraph& g, int src_gpu, int dst_gpu, std::uint64_t flow);

// With failed links (faults.h): whether the branch from leaf sl to
// leaf dl has its links above the leaves up (spine, and core across pods).
bool branch_up(const ClusterGraph& g, int sl, int dl, UplinkChoice c);

// Writes the path through a given branch into `out` (overwriting it).
// src == dst gives an empty path. GPU indices must lie in [0, gpu_count()):
// routing is on the hot path and does not check them.
void route_via(const ClusterGraph& g, int src_gpu, int dst_gpu, UplinkChoice choice, Path& out);

// The path of flow `flow` from src to dst under the topology's routing mode.
void route(const ClusterGraph& g, int src_gpu, int dst_gpu, std::uint64_t flow, Path& out);

// For a switch or NIC forwarding a packet of this flow: the link it leaves on,
// or kNoLink when `at` is the destination or not on the flow's path.
LinkId next_link(const ClusterGraph& g, VertexId at, int src_gpu, int dst_gpu, std::uint64_t flow);

// The alpha-beta view of a path.
struct PathStats {
  int hops = 0;
  double bottleneck_Bps = 0;  // smallest link bandwidth; +inf for an empty path
  core::SimTime latency;      // sum of link latencies
};
PathStats path_stats(const ClusterGraph& g, const Path& path);

// latency + bytes / bottleneck: an uncongested transfer over the path.
core::SimTime transfer_time(const PathStats& stats, double bytes);

}  // namespace pf::models::network
