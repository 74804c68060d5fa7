#include "core/lp_context.h"

#include <algorithm>

namespace pf::core {

LpContext::LpContext(int rank, int ranks, std::vector<int> lp_rank)
    : lp_rank_(std::move(lp_rank)), rank_(rank), ranks_(ranks) {
  send_seq_.assign(lp_rank_.size(), 0);
  digest_.assign(lp_rank_.size(), 0);
  outbox_.resize(static_cast<std::size_t>(ranks_));
  for (auto& box : outbox_) box.resize(1);  // slot 0 is the message header
  lookahead_to_.assign(static_cast<std::size_t>(ranks_), SimTime::infinity());
  send_floor_ = lookahead_to_;
  promises_.configure(lp_rank_.size(), {}, {});
}

void LpContext::reject_send(SimTime at, LpId dst, const char* why) {
  fail("LP " + std::to_string(current_lp_) + " at t=" + std::to_string(now_.ps) + " ps sent an event to LP " +
       std::to_string(dst) + " for t=" + std::to_string(at.ps) + " ps " + why);
}

void LpContext::reject_broken_silence(SimTime at, LpId dst) {
  reject_send(at, dst, "while handling a silent event, whose sender vouched that it sends nothing "
                       "(LpContext::send_silent): the model's claim was wrong");
}

void LpContext::reject_lowered_promise(SimTime at, LpId lp) {
  fail("LP " + std::to_string(lp) + " at t=" + std::to_string(now_.ps) + " ps lowered its promise to t=" +
       std::to_string(at.ps) + " ps (from t=" + std::to_string(promises_.promise_of(lp).ps) +
       " ps) while LP " + std::to_string(current_lp_) + " handled a silent event, which must move no send " +
       "sooner (LpContext::send_silent): the model's claim was wrong");
}

void LpContext::reject_broken_promise(SimTime at, LpId dst) {
  const std::string why = "while handling one of its quiet events, before its promise (no send until t=" +
                          std::to_string(promises_.promise_of(current_lp_).ps) +
                          " ps): the model's promise (core/promise_board.h) was wrong";
  reject_send(at, dst, why.c_str());
}

void LpContext::send_remote(const Event& event, int dst_rank) {
  // What keeps the run correct is the promise this rank made to the receiver
  // (which follows from the lookaheads the model declared).
  // A direct send below the sender's own declared lookahead breaks the model's
  // contract even where no promise happens to depend on it: reported too, so
  // that such a bug shows whatever the timing.
  const SimTime lookahead = lookahead_to_[static_cast<std::size_t>(dst_rank)];
  const SimTime floor = std::max(send_floor_[static_cast<std::size_t>(dst_rank)],
                                 now_ + std::max(lookahead, queue_.lookahead_of(current_lp_)));
  if (event.time < floor) [[unlikely]] {
    std::string why = lookahead.is_infinite()
                          ? std::string("on rank ") + std::to_string(dst_rank) + ", which has no channel from rank " +
                                std::to_string(rank_)
                          : "on rank " + std::to_string(dst_rank) + ", before t=" + std::to_string(floor.ps) +
                                " ps (the rank's promise, or now + lookahead: " + std::to_string(lookahead.ps) +
                                " ps to that rank, " + std::to_string(queue_.lookahead_of(current_lp_).ps) +
                                " ps from this LP): lookahead violation";
    reject_send(event.time, event.dst, why.c_str());
    return;
  }
  outbox_[static_cast<std::size_t>(dst_rank)].push_back(event);
  ++stats_.remote_events;
}

void LpContext::fail(const std::string& message) {
  if (stop_) return;  // keep the first error
  stop_ = true;
  error_ = message;
}

}  // namespace pf::core
