// A communication group: an arbitrary set of GPUs, seen the way NCCL builds
// its rings and trees, i.e. by server. Members on one server are taken in GPU
// order, servers in id order; the double binary tree spans the servers.
#pragma once

#include <array>
#include <span>
#include <vector>

namespace pf::models::collective {

class Group {
 public:
  // Members: distinct GPU ids in [0, gpu_count), in the caller's order (the
  // member index order, used for roots and send/recv neighbours). Throws
  // pf::SimulationError otherwise.
  Group(std::vector<int> members, int gpus_per_node, int gpu_count);

  int size() const { return static_cast<int>(members_.size()); }
  int member(int index) const { return members_[static_cast<std::size_t>(index)]; }
  const std::vector<int>& members() const { return members_; }

  // The servers the group spans, as positions 0..nodes()-1.
  int nodes() const { return static_cast<int>(node_offset_.size()) - 1; }
  int on_node(int j) const { return node_offset_[idx(j) + 1] - node_offset_[idx(j)]; }
  int gpu_at(int j, int q) const { return by_node_[idx(node_offset_[idx(j)] + q)]; }
  int members_before(int j) const { return node_offset_[idx(j)]; }
  int max_per_node() const { return max_per_node_; }
  // Every server holds the same local GPU indices (hierarchical needs it).
  bool regular() const { return regular_; }

  struct Place {
    int node = -1;    // server position
    int index = -1;   // position among the server's members
    int member = -1;  // member index
  };
  Place place(int gpu) const;  // all -1 when gpu is not a member
  int member_index(int gpu) const { return place(gpu).member; }

  // Double binary tree over server positions (tree 0 or 1).
  int tree_parent(int tree, int j) const { return parent_[static_cast<std::size_t>(tree)][idx(j)]; }
  std::span<const int> tree_children(int tree, int j) const;
  int tree_depth(int tree) const { return depth_[static_cast<std::size_t>(tree)]; }

 private:
  static std::size_t idx(int i) { return static_cast<std::size_t>(i); }
  void build_trees();

  std::vector<int> members_;
  std::vector<int> node_offset_;  // CSR over servers
  std::vector<int> by_node_;
  std::vector<std::array<int, 4>> lookup_;  // sorted {gpu, node, index, member}
  int max_per_node_ = 0;
  bool regular_ = true;
  std::array<std::vector<int>, 2> parent_;
  std::array<std::vector<int>, 2> child_offset_;
  std::array<std::vector<int>, 2> children_;
  std::array<int, 2> depth_{};
};

}  // namespace pf::models::collective
