#include "core/promise_board.h"

#include <algorithm>
#include <limits>

namespace pf::core {

namespace {
constexpr SimTime kNoPromise{std::numeric_limits<std::int64_t>::min()};
constexpr std::uint32_t kUntracked = std::numeric_limits<std::uint32_t>::max();
}  // namespace

void PromiseBoard::configure(std::size_t lp_count, const std::vector<LpId>& tracked,
                             const std::vector<SimTime>& lookahead) {
  promise_.assign(lp_count, kNoPromise);
  quiet_.clear();
  stale_.clear();
  slot_.clear();
  tree_.clear();
  if (tracked.empty()) return;
  quiet_.assign(lp_count, 0);
  touched_.assign(lp_count, 0);
  stale_.assign(lp_count, 0);
  changed_.clear();
  slot_.assign(lp_count, kUntracked);
  lookahead_ = lookahead;
  leaves_ = 1;
  while (leaves_ < tracked.size()) leaves_ *= 2;
  tree_.assign(2 * leaves_, SimTime::infinity());
  leaf_lp_.assign(leaves_, kNoLp);
  for (std::size_t i = 0; i < tracked.size(); ++i) {
    slot_[tracked[i]] = static_cast<std::uint32_t>(i);
    leaf_lp_[i] = tracked[i];
  }
}

SimTime PromiseBoard::settled_earliest_output(SimTime matters_below, PromiseSource* source) {
  for (;;) {
    const SimTime earliest = earliest_output();
    if (earliest >= matters_below || source == nullptr) return earliest;
    const LpId lp = binding_lp();
    if (lp == kNoLp || !stale(lp)) return earliest;
    promise(lp, source->current_promise(lp));
  }
}

LpId PromiseBoard::binding_lp() const {
  if (tree_.empty() || tree_[1].is_infinite()) return kNoLp;
  std::size_t i = 1;
  while (i < leaves_) i = tree_[2 * i] == tree_[i] ? 2 * i : 2 * i + 1;
  return leaf_lp_[i - leaves_];
}

SimTime PromiseBoard::earliest_output() {
  if (tree_.empty()) return SimTime::infinity();
  for (LpId lp : changed_) {
    touched_[lp] = 0;
    refresh(lp);
  }
  changed_.clear();
  return tree_[1];
}

void PromiseBoard::refresh(LpId lp) {
  const std::uint32_t leaf = slot_[lp];
  if (leaf == kUntracked) return;
  std::size_t i = leaves_ + leaf;
  tree_[i] = quiet_[lp] > 0 ? promise_[lp] + lookahead_[lp] : SimTime::infinity();
  for (i /= 2; i >= 1; i /= 2) {
    const SimTime m = std::min(tree_[2 * i], tree_[2 * i + 1]);
    if (tree_[i] == m) break;  // nothing above changes
    tree_[i] = m;
  }
}

}  // namespace pf::core
