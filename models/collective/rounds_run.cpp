#include "models/collective/rounds_run.h"

#include <algorithm>
#include <string>

#include "core/error.h"
#include "models/collective/nccl_cost.h"

namespace pf::models::collective {

RoundsRun::RoundsRun(const std::vector<int>& members, int me, std::uint64_t bytes, int channels, bool halving)
    : members_(&members), me_(me), bytes_(bytes), halving_(halving) {
  rounds_ = pat_rounds(static_cast<int>(members.size()));  // <= 31: fits the received mask
  all_rounds_ = static_cast<std::uint32_t>((std::uint64_t{1} << rounds_) - 1);
  channels_.resize(static_cast<std::size_t>(std::max(1, channels)));
  for (Channel& c : channels_) settle(c);
}

int RoundsRun::distance(int round) const { return 1 << (halving_ ? rounds_ - 1 - round : round); }

std::uint64_t RoundsRun::round_bytes(int round, int channel) const {
  const auto n = static_cast<std::uint64_t>(members_->size());
  const int d = distance(round);
  const auto blocks = static_cast<std::uint64_t>(std::min<std::int64_t>(d, static_cast<std::int64_t>(n) - d));
  // The blocks are whole members' shares: bytes x blocks / n, rounded as split() does.
  const std::uint64_t part = bytes_ / n * blocks + std::min(blocks, bytes_ % n);
  return split(part, channels_.size(), static_cast<std::uint64_t>(channel));
}

void RoundsRun::note(int round, int channel, std::uint32_t count) {
  if (round < 0 || round >= rounds_ || channel < 0 || static_cast<std::size_t>(channel) >= channels_.size())
    throw SimulationError("pat collective: message for round " + std::to_string(round) + ", channel " +
                          std::to_string(channel) + " of " + std::to_string(rounds_) + " rounds and " +
                          std::to_string(channels_.size()) + " channels");
  Channel& c = channels_[static_cast<std::size_t>(channel)];
  const std::uint32_t bit = std::uint32_t{1} << round;
  if (count != 1 || (c.received & bit) != 0)
    throw SimulationError("pat collective: two messages for round " + std::to_string(round));
  c.received |= bit;
  settle(c);
}

void RoundsRun::settle(Channel& c) {
  if (c.complete || c.sent < rounds_ || c.received != all_rounds_) return;
  c.complete = true;
  ++finished_;
}

void RoundsRun::advance(const SendContext& cx, int channel) {
  Channel& c = channels_[static_cast<std::size_t>(channel)];
  const int n = static_cast<int>(members_->size());
  // Round k forwards what round k - 1 brought.
  while (c.sent < rounds_ && (c.sent == 0 || (c.received >> (c.sent - 1) & 1) != 0)) {
    const int to = (*members_)[static_cast<std::size_t>((me_ - distance(c.sent) % n + n) % n)];
    cx.send(to, round_bytes(c.sent, channel), static_cast<std::uint8_t>(c.sent), static_cast<std::uint8_t>(channel),
            c.sent == 0 ? Wait::first : Wait::step);
    ++c.sent;
  }
  settle(c);
}

void RoundsRun::advance_all(const SendContext& cx) {
  for (std::size_t c = 0; c < channels_.size(); ++c) advance(cx, static_cast<int>(c));
}

}  // namespace pf::models::collective
