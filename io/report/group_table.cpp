#include "io/report/group_table.h"

#include <cstdio>

#include "core/error.h"

namespace pf::report {

using models::workload::GroupId;
using models::workload::GroupKind;
using models::workload::kGroupKindCount;

GroupIndex::GroupIndex(const models::workload::RankLayout& layout) {
  for (int k = 1; k < kGroupKindCount; ++k) {
    const auto kind = static_cast<std::size_t>(k);
    base_[kind] = size_;
    count_[kind] = static_cast<std::uint32_t>(layout.group_count(static_cast<GroupKind>(k)));
    size_ += count_[kind];
  }
}

void GroupIndex::fail(GroupId group) const {
  char raw[16];
  std::snprintf(raw, sizeof raw, "0x%08x", static_cast<unsigned>(group.raw()));
  throw SimulationError(std::string("timeline groups: group id ") + raw + " (kind " +
                        std::to_string(static_cast<int>(group.kind())) + ", index " + std::to_string(group.index()) +
                        ") is not a group of this parallel layout");
}

std::vector<std::string> group_table(const models::workload::RankLayout& layout) {
  const GroupIndex index(layout);
  std::vector<std::string> names;
  names.reserve(index.size());
  names.emplace_back("none");
  for (int k = 1; k < kGroupKindCount; ++k) {
    const auto kind = static_cast<GroupKind>(k);
    const auto count = static_cast<std::uint32_t>(layout.group_count(kind));
    for (std::uint32_t i = 0; i < count; ++i) names.push_back(models::workload::RankLayout::group_name(GroupId{kind, i}));
  }
  return names;
}

std::uint32_t group_index(GroupId group, const models::workload::RankLayout& layout) {
  return GroupIndex(layout)(group);
}

}  // namespace pf::report
