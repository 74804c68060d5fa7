#include "models/collective/group.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "models/collective/double_binary_tree.h"

namespace pf::models::collective {

Group::Group(std::vector<int> members, int gpus_per_node, int gpu_count) : members_(std::move(members)) {
  if (members_.empty()) throw SimulationError("collective group: expected at least one member, found none");
  std::vector<int> sorted = members_;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    if (sorted[i] < 0 || sorted[i] >= gpu_count)
      throw SimulationError("collective group: GPU " + std::to_string(sorted[i]) + " is outside 0.." +
                            std::to_string(gpu_count - 1));
    if (i > 0 && sorted[i] == sorted[i - 1])
      throw SimulationError("collective group: GPU " + std::to_string(sorted[i]) + " appears twice");
  }
  // Sorted GPU ids are grouped by server already, servers in id order.
  by_node_ = sorted;
  node_offset_.push_back(0);
  for (std::size_t i = 1; i <= sorted.size(); ++i) {
    if (i == sorted.size() || sorted[i] / gpus_per_node != sorted[i - 1] / gpus_per_node)
      node_offset_.push_back(static_cast<int>(i));
  }
  for (int j = 0; j < nodes(); ++j) {
    max_per_node_ = std::max(max_per_node_, on_node(j));
    if (on_node(j) != on_node(0)) {
      regular_ = false;
      continue;
    }
    for (int q = 0; q < on_node(j); ++q)
      if (gpu_at(j, q) % gpus_per_node != gpu_at(0, q) % gpus_per_node) regular_ = false;
  }
  for (int j = 0; j < nodes(); ++j)
    for (int q = 0; q < on_node(j); ++q) lookup_.push_back({gpu_at(j, q), j, q, 0});
  for (std::size_t m = 0; m < members_.size(); ++m) {
    auto it = std::lower_bound(lookup_.begin(), lookup_.end(), std::array<int, 4>{members_[m], -1, -1, -1});
    (*it)[3] = static_cast<int>(m);
  }
  build_trees();
}

void Group::build_trees() {
  parent_[0] = binary_tree_parents(nodes());
  parent_[1] = second_tree_parents(nodes());
  for (std::size_t t = 0; t < 2; ++t) {
    depth_[t] = collective::tree_depth(parent_[t]);
    std::vector<int>& off = child_offset_[t];
    off.assign(idx(nodes()) + 1, 0);
    for (int p : parent_[t])
      if (p >= 0) ++off[idx(p) + 1];
    for (std::size_t j = 0; j + 1 < off.size(); ++j) off[j + 1] += off[j];
    children_[t].assign(idx(off.back()), 0);
    std::vector<int> fill(off.begin(), off.end() - 1);
    for (int j = 0; j < nodes(); ++j) {
      const int p = parent_[t][idx(j)];
      if (p >= 0) children_[t][idx(fill[idx(p)]++)] = j;
    }
  }
}

Group::Place Group::place(int gpu) const {
  auto it = std::lower_bound(lookup_.begin(), lookup_.end(), std::array<int, 4>{gpu, -1, -1, -1});
  if (it == lookup_.end() || (*it)[0] != gpu) return {};
  return {(*it)[1], (*it)[2], (*it)[3]};
}

std::span<const int> Group::tree_children(int tree, int j) const {
  const auto t = static_cast<std::size_t>(tree);
  const int b = child_offset_[t][idx(j)];
  const int e = child_offset_[t][idx(j) + 1];
  return std::span<const int>(children_[t]).subspan(idx(b), idx(e - b));
}

}  // namespace pf::models::collective
