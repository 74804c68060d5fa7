#include "models/collective/ring_run.h"

#include <string>

#include "core/error.h"

namespace pf::models::collective {

RingRun::RingRun(std::vector<RingSeat> seats, int members, std::uint64_t bytes, std::uint32_t steps,
                 std::uint8_t phase, bool initiator)
    : bytes_(bytes), members_(members), steps_(steps), phase_(phase), initiator_(initiator) {
  for (const RingSeat& s : seats) {
    channels_.push_back({s, 0, 0, steps_ == 0});
    if (steps_ == 0) ++finished_;
  }
}

void RingRun::note(int channel, std::uint32_t count) {
  if (channel < 0 || static_cast<std::size_t>(channel) >= channels_.size())
    throw SimulationError("ring collective: message on channel " + std::to_string(channel) + " of " +
                          std::to_string(channels_.size()));
  Channel& c = channels_[static_cast<std::size_t>(channel)];
  c.received += count;
  if (c.received > steps_)
    throw SimulationError("ring collective: " + std::to_string(c.received) + " messages for " +
                          std::to_string(steps_) + " steps");
  settle(c);
}

void RingRun::settle(Channel& c) {
  if (!c.complete && c.received == steps_ && c.sent == steps_) {
    c.complete = true;
    ++finished_;
  }
}

std::uint64_t RingRun::step_bytes(int channel, std::uint32_t step) const {
  const Channel& c = channels_[static_cast<std::size_t>(channel)];
  const auto n = static_cast<std::uint64_t>(members_);
  // At step s the GPU at ring position p passes block p - s (mod n).
  const std::uint64_t block = (static_cast<std::uint64_t>(c.seat.position) + n * (steps_ + 1) - step) % n;
  return split(split(bytes_, n, block), channels_.size(), static_cast<std::uint64_t>(channel));
}

void RingRun::advance(const SendContext& cx, int channel) {
  if (!started_) return;
  Channel& c = channels_[static_cast<std::size_t>(channel)];
  // Step t needs step t-1's block: t <= received.
  while (c.sent < steps_ && c.sent <= c.received) {
    // Every step is one NCCL step: it pays the step latency (and the first the base).
    const Wait wait = c.sent == 0 && initiator_ ? Wait::first : Wait::step;
    cx.send(c.seat.next, step_bytes(channel, c.sent), phase_, static_cast<std::uint8_t>(channel), wait);
    ++c.sent;
  }
  settle(c);
}

void RingRun::advance_all(const SendContext& cx) {
  for (std::size_t c = 0; c < channels_.size(); ++c) advance(cx, static_cast<int>(c));
}

}  // namespace pf::models::collective
