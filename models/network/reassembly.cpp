#include "models/network/reassembly.h"

#include <algorithm>

#include "core/mix64.h"

namespace pf::models::network {

std::size_t Reassembly::home(std::uint64_t key, std::uint32_t id) const {
  return static_cast<std::size_t>(core::mix64(key ^ core::mix64(id))) & (slots_.size() - 1);
}

bool Reassembly::arrive(std::int32_t src, std::int32_t dst, std::uint32_t id, std::uint32_t count,
                        core::SimTime arrival, core::SimTime& complete_at) {
  const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32) |
                            static_cast<std::uint32_t>(dst);
  if (2 * (used_ + 1) > slots_.size()) grow();
  std::size_t at = home(key, id);
  while (slots_[at].arrived != 0 && (slots_[at].key != key || slots_[at].id != id)) at = (at + 1) & (slots_.size() - 1);
  Slot& s = slots_[at];
  if (s.arrived == 0) {
    s = Slot{key, id, 0, 0, arrival};
    ++used_;
  }
  ++s.arrived;
  s.latest = std::max(s.latest, arrival);
  if (count != 0) s.expected = count;
  if (s.expected == 0 || s.arrived < s.expected) return false;
  complete_at = s.latest;
  erase(at);
  return true;
}

// Backward-shift deletion: later entries of the probe run move up, so a
// lookup never needs tombstones.
void Reassembly::erase(std::size_t at) {
  const std::size_t mask = slots_.size() - 1;
  std::size_t hole = at;
  for (std::size_t next = (hole + 1) & mask; slots_[next].arrived != 0; next = (next + 1) & mask) {
    const std::size_t want = home(slots_[next].key, slots_[next].id);
    // Move the entry into the hole unless its home lies cyclically in (hole, next].
    const bool stays = hole <= next ? (want > hole && want <= next) : (want > hole || want <= next);
    if (stays) continue;
    slots_[hole] = slots_[next];
    hole = next;
  }
  slots_[hole] = Slot{};
  --used_;
}

void Reassembly::grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  for (const Slot& s : old) {
    if (s.arrived == 0) continue;
    std::size_t at = home(s.key, s.id);
    while (slots_[at].arrived != 0) at = (at + 1) & (slots_.size() - 1);
    slots_[at] = s;
  }
}

}  // namespace pf::models::network
