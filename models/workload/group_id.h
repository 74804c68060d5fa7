// A communication group of GPUs, identified by its kind and an index among the
// groups of that kind. The id is a pure function of the configuration, so every
// MPI rank names the same group the same way; RankLayout enumerates members.
#pragma once

#include <cstdint>
#include <string_view>

namespace pf::models::workload {

enum class GroupKind : std::uint8_t {
  none,   // compute ops
  tp,     // tensor parallel: vary tp
  cp,     // context parallel: vary cp
  dp,     // data parallel: vary dp
  dp_cp,  // data x context parallel: where dense gradients are reduced when cp > 1
  ep,     // expert parallel: carved out of dp x cp
  edp,    // expert data parallel: where expert gradients are reduced
  pp,     // pipeline: vary pp
  embd,   // first and last pipeline stage: tied word-embedding gradients
  count_  // number of kinds, not a kind
};

inline constexpr int kGroupKindCount = static_cast<int>(GroupKind::count_);

std::string_view group_kind_name(GroupKind kind);

// Packed as kind << 24 | index: stable, fits the timeline's u32 group column.
class GroupId {
 public:
  constexpr GroupId() = default;
  constexpr GroupId(GroupKind kind, std::uint32_t index)
      : raw_((static_cast<std::uint32_t>(kind) << 24) | (index & 0xffffffu)) {}
  static constexpr GroupId from_raw(std::uint32_t raw) {
    GroupId g;
    g.raw_ = raw;
    return g;
  }
  constexpr GroupKind kind() const { return static_cast<GroupKind>(raw_ >> 24); }
  constexpr std::uint32_t index() const { return raw_ & 0xffffffu; }
  constexpr std::uint32_t raw() const { return raw_; }
  constexpr bool is_none() const { return kind() == GroupKind::none; }
  friend constexpr bool operator==(GroupId a, GroupId b) { return a.raw_ == b.raw_; }
  friend constexpr bool operator<(GroupId a, GroupId b) { return a.raw_ < b.raw_; }

 private:
  std::uint32_t raw_ = 0;
};

}  // namespace pf::models::workload
