// The cluster as a graph: GPUs, NVSwitches, NICs and leaf/spine/core switches
// as vertices; every cable as two directed links with bandwidth and latency.
//
// Two views of the same data. `graph()` is a Boost.Graph adjacency_list with
// bundled properties, for generic algorithms (search, contraction checks).
// The flat arrays (`vertex()`, `link()`, `out_links()`) and the arithmetic
// link-id lookups are for the hot path: the packet network indexes links by id
// millions of times and must not walk a graph to do so.
//
// Dense ids. Vertices come in kind order: GPUs first, so GPU g is vertex g,
// then NVSwitches (one per server with > 1 GPU), NICs, leaves, spines, cores.
// Links come in cable order, two per cable: the even id points up the tree
// (GPU->NVSwitch, GPU->NIC, NIC->leaf, leaf->spine, spine->core), the odd id
// is its reverse, so reverse(l) == l ^ 1.
//
// Latency attribution. A link carries its cable's `link_latency_us` (network
// cables only) plus the latency of the device the link leaves: a switch adds
// `switch_latency_us` to each of its outgoing links, a NIC adds half of
// `nic_latency_us` to its outgoing links (NIC->leaf on send, NIC->GPU on
// receive: an inter-node message pays the whole end-to-end figure once). GPU->NIC (PCIe) adds
// nothing of its own. NVLink latency is the GPU-to-GPU figure, split over
// GPU->NVSwitch and NVSwitch->GPU so the two-hop path sums to it exactly.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include <boost/graph/adjacency_list.hpp>

#include "core/sim_time.h"
#include "models/network/link.h"
#include "models/network/topology_shape.h"
#include "models/network/vertex.h"

namespace pf::models::network {

class ClusterGraph {
 public:
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, Vertex, Link>;

  explicit ClusterGraph(const ClusterShape& shape);
  // Move-only: a 16k-GPU graph should not be copied by accident, and Boost's
  // adjacency_list has no move constructor of its own, hence the pointer.
  ClusterGraph(ClusterGraph&&) noexcept = default;
  ClusterGraph& operator=(ClusterGraph&&) noexcept = default;
  ClusterGraph(const ClusterGraph&) = delete;
  ClusterGraph& operator=(const ClusterGraph&) = delete;
  ~ClusterGraph() = default;

  const ClusterShape& shape() const { return shape_; }
  const Graph& graph() const { return *graph_; }

  int gpu_count() const { return shape_.gpus(); }
  int vertex_count() const { return static_cast<int>(vertices_.size()); }
  int link_count() const { return static_cast<int>(links_.size()); }
  const Vertex& vertex(VertexId v) const { return vertices_[static_cast<std::size_t>(v)]; }
  const Link& link(LinkId l) const { return links_[static_cast<std::size_t>(l)]; }
  std::span<const Vertex> vertices() const { return vertices_; }
  std::span<const Link> links() const { return links_; }
  std::span<const LinkId> out_links(VertexId v) const {
    const auto b = static_cast<std::size_t>(out_offset_[static_cast<std::size_t>(v)]);
    const auto e = static_cast<std::size_t>(out_offset_[static_cast<std::size_t>(v) + 1]);
    return std::span<const LinkId>(out_links_).subspan(b, e - b);
  }

  int count(VertexKind k) const { return kind_first_[idx(k) + 1] - kind_first_[idx(k)]; }
  VertexId first(VertexKind k) const { return kind_first_[idx(k)]; }
  VertexId vertex_of(VertexKind k, int index) const { return kind_first_[idx(k)] + index; }

  // Structure, by index within a kind.
  // Routing asks these at every hop; each is several integer divisions, so
  // they are tabulated once (place_gpus()). Indices are not checked.
  int node_of_gpu(int gpu) const { return gpu_place_[static_cast<std::size_t>(gpu)].node; }
  int nic_of_gpu(int gpu) const { return gpu_place_[static_cast<std::size_t>(gpu)].nic; }
  int leaf_of_nic(int nic) const { return nic_leaf_[static_cast<std::size_t>(nic)]; }
  int pod_of_leaf(int leaf) const { return leaf / shape_.leaves_per_pod; }
  int spine_of(int pod, int k) const { return pod * shape_.spines_per_pod + k; }
  int core_of(int k, int c) const { return k * shape_.spine_uplinks + c; }

  // Up-pointing link ids; reverse() gives the way back.
  LinkId gpu_nvswitch_link(int gpu) const { return nvlink_base_ + 2 * gpu; }
  LinkId gpu_nic_link(int gpu) const { return attach_base_ + 2 * gpu; }
  LinkId nic_leaf_link(int nic) const { return nic_leaf_base_ + 2 * nic; }
  LinkId leaf_spine_link(int leaf, int k) const { return leaf_spine_base_ + 2 * (leaf * shape_.spines_per_pod + k); }
  LinkId spine_core_link(int spine, int c) const { return spine_core_base_ + 2 * (spine * shape_.spine_uplinks + c); }
  static constexpr LinkId reverse(LinkId l) { return l ^ 1; }

  // Faults (faults.h) change links after construction; both views
  // change together.
  void set_link_figures(LinkId l, double bandwidth_Bps, core::SimTime latency);
  void fail_link(LinkId l);
  bool has_failed_links() const { return failed_links_ > 0; }
  bool link_failed(LinkId l) const { return links_[static_cast<std::size_t>(l)].failed; }
  // The directed link from src to dst, kNoLink if the two are not cabled.
  LinkId find_link(VertexId src, VertexId dst) const;

  // Bytes held by the flat arrays and the Boost graph (an estimate for the latter).
  std::size_t memory_bytes() const;

 private:
  static constexpr std::size_t idx(VertexKind k) { return static_cast<std::size_t>(k); }
  void place_gpus();
  void add_vertices();
  void add_cables();
  void add_cable(VertexId lower, VertexId upper, double bandwidth_Bps, core::SimTime up_latency,
                 core::SimTime down_latency, LinkClass up_class);
  void index_out_links();
  void sync_bundle(LinkId l);

  ClusterShape shape_;
  std::array<VertexId, kVertexKinds + 1> kind_first_{};
  struct GpuPlace {
    std::int32_t node = 0;
    std::int32_t nic = 0;
  };
  std::vector<GpuPlace> gpu_place_;     // per GPU
  std::vector<std::int32_t> nic_leaf_;  // per NIC
  std::vector<Vertex> vertices_;
  std::vector<Link> links_;
  std::vector<std::int32_t> out_offset_;
  std::vector<LinkId> out_links_;
  int failed_links_ = 0;
  LinkId nvlink_base_ = 0, attach_base_ = 0, nic_leaf_base_ = 0, leaf_spine_base_ = 0, spine_core_base_ = 0;
  std::unique_ptr<Graph> graph_;
};

// Derives the shape (validating the inputs) and builds the graph.
ClusterGraph build_cluster(const models::NodeSpec& node, const models::TopologySpec& topo);

}  // namespace pf::models::network
