#include "core/lookahead_queue.h"

#include <algorithm>

#include "core/error.h"

namespace pf::core {

void LookaheadQueue::configure(std::vector<std::uint8_t> class_of, std::vector<SimTime> lookahead) {
  if (lookahead.empty() || lookahead.size() > kMaxLookaheadClasses)
    throw SimulationError("engine: expected 1.." + std::to_string(kMaxLookaheadClasses) + " lookahead classes, found " +
                          std::to_string(lookahead.size()));
  for (std::size_t lp = 0; lp < class_of.size(); ++lp)
    if (class_of[lp] >= lookahead.size())
      throw SimulationError("engine: LP " + std::to_string(lp) + " has lookahead class " +
                            std::to_string(class_of[lp]) + " of " + std::to_string(lookahead.size()));
  classes_ = static_cast<int>(lookahead.size());
  std::copy(lookahead.begin(), lookahead.end(), lookahead_.begin());
  class_of_ = std::move(class_of);
}

std::size_t LookaheadQueue::size() const {
  std::size_t n = 0;
  for (int k = 0; k < classes_; ++k) n += queues_[static_cast<std::size_t>(k)].size();
  return n + queues_[kQuietHeap].size();
}

std::size_t LookaheadQueue::peak_size() const {
  // Sum of per-class peaks: an upper bound on the true peak (they need not coincide).
  std::size_t n = 0;
  for (int k = 0; k < classes_; ++k) n += queues_[static_cast<std::size_t>(k)].peak_size();
  return n + queues_[kQuietHeap].peak_size();
}

std::size_t LookaheadQueue::memory_bytes() const {
  std::size_t n = class_of_.capacity();
  for (int k = 0; k < classes_; ++k) n += queues_[static_cast<std::size_t>(k)].memory_bytes();
  return n + queues_[kQuietHeap].memory_bytes();
}

LookaheadClasses group_lookaheads(const std::vector<SimTime>& lp_lookahead) {
  std::vector<SimTime> distinct = lp_lookahead;
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  LookaheadClasses c;
  if (distinct.empty()) return c;
  // Representatives spread over the distinct values, the smallest first; an LP
  // takes the largest representative not above its own value.
  const std::size_t n = distinct.size(), k = std::min<std::size_t>(n, kMaxLookaheadClasses);
  for (std::size_t j = 0; j < k; ++j) c.lookahead.push_back(distinct[j * n / k]);
  c.class_of.resize(lp_lookahead.size());
  for (std::size_t lp = 0; lp < lp_lookahead.size(); ++lp) {
    const auto above = std::upper_bound(c.lookahead.begin(), c.lookahead.end(), lp_lookahead[lp]);
    c.class_of[lp] = static_cast<std::uint8_t>(above - c.lookahead.begin() - 1);
  }
  return c;
}

}  // namespace pf::core
