// The timeline's /groups table: every communicator group of the run, so that
// an /events row names its group by a small index. Index 0 is "none" (compute
// ops); then the groups of each GroupKind in kind order, each kind's groups in
// index order, named by RankLayout::group_name ("tp[0]", "dp[3]"). The table is
// a pure function of the parallel layout, so every MPI rank builds the same one
// without communicating.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/workload/group_id.h"
#include "models/workload/rank_layout.h"

namespace pf::report {

// Maps a workload GroupId to its row of group_table() in O(1): one table row
// per group, so a kind's groups start at a base offset (1 + the group counts
// of the kinds before it). Built once per run, then used for every event.
class GroupIndex {
 public:
  explicit GroupIndex(const models::workload::RankLayout& layout);

  // Throws pf::SimulationError for a kind or index the layout does not have.
  std::uint32_t operator()(models::workload::GroupId group) const {
    const auto kind = static_cast<std::size_t>(group.kind());
    if (kind == 0) return 0;  // none, whatever its index bits
    if (kind >= count_.size() || group.index() >= count_[kind]) fail(group);
    return base_[kind] + group.index();
  }
  std::uint32_t size() const { return size_; }  // rows of group_table(), "none" included

 private:
  [[noreturn]] void fail(models::workload::GroupId group) const;

  std::array<std::uint32_t, models::workload::kGroupKindCount> base_{};
  std::array<std::uint32_t, models::workload::kGroupKindCount> count_{};
  std::uint32_t size_ = 1;
};

std::vector<std::string> group_table(const models::workload::RankLayout& layout);

// One-off lookup; for many events build a GroupIndex once instead.
std::uint32_t group_index(models::workload::GroupId group, const models::workload::RankLayout& layout);

}  // namespace pf::report
