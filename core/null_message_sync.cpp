// Null-message synchronisation (Chandy-Misra-Bryant) over nonblocking MPI.
//
// Each rank keeps, per source rank, a channel clock: no future event from that
// rank is earlier. It may run every event strictly before the smallest clock
// (strictly: an event arriving at exactly that time could tie-break first).
// Whenever its own horizon h = min(next local event, smallest clock) rises, it
// tells every neighbour "nothing from me before h + lookahead" — on the next
// batch of real events if there is one, else on an empty (null) message. With
// positive lookahead the clocks always advance, so no rank deadlocks; a rank
// blocks in MPI only when it can run nothing and has nothing new to say.
//
// Ending without an end time: a rank whose model reports finished() posts an
// MPI_Ibarrier and from then on never blocks (a blocked rank could not see the
// barrier complete), polling for messages and the barrier instead. When the
// barrier completes every rank has finished, and each stops. Every rank also
// completes the barrier on its way out (end reached, or an error), posting it
// then if it had not, so no request is left pending and no rank waits on it.
#include <algorithm>
#include <thread>

#include "core/sync_state.h"

namespace pf::core {
namespace {

bool has_channel(const Engine::SyncState& s, std::size_t to) { return !s.lookahead_to[to].is_infinite(); }

}  // namespace

// Sends outbox_[to] (header + events) without waiting on earlier sends to the
// same rank: a rank blocked on a send while its peer is blocked on one too
// would deadlock once messages are too large for MPI's eager protocol.
static void post(Engine::SyncState& s, std::vector<Event>& box, int to, SimTime clock, EventKind flags) {
  auto& flights = s.in_flight[static_cast<std::size_t>(to)];
  InFlight* slot = nullptr;
  for (auto& flight : flights) {
    int done = 1;
    if (flight.request != MPI_REQUEST_NULL) MPI_Test(&flight.request, &done, MPI_STATUS_IGNORE);
    if (done) {
      slot = &flight;
      break;
    }
  }
  if (slot == nullptr) slot = &flights.emplace_back();
  box[0].time = clock;
  box[0].kind = flags;
  slot->buffer.swap(box);
  box.resize(1);
  MPI_Isend(slot->buffer.data(), static_cast<int>(slot->buffer.size() * sizeof(Event)), MPI_BYTE, to, kEventTag,
            s.comm, &slot->request);
}

void Engine::start_null_message(bool model_reports_finished) {
  SyncState& s = *sync_;
  const auto ranks_n = static_cast<std::size_t>(ranks());
  // Nothing was sent before time zero, so a channel's first clock is its lookahead.
  s.in_clock.resize(ranks_n);
  for (std::size_t r = 0; r < ranks_n; ++r) s.in_clock[r] = channel_lookahead(static_cast<int>(r), rank_);
  s.in_clock[static_cast<std::size_t>(rank_)] = SimTime::infinity();
  s.last_promise.assign(ranks_n, SimTime{-1});
  s.in_flight.resize(ranks_n);
  s.final_from.assign(ranks_n, false);
  s.reports_finished = model_reports_finished;
}

void Engine::complete_finish_barrier() {
  SyncState& s = *sync_;
  if (!s.reports_finished) return;
  if (!s.finish_posted) {
    MPI_Ibarrier(s.comm, &s.finish_barrier);
    s.finish_posted = true;
  }
  MPI_Wait(&s.finish_barrier, MPI_STATUS_IGNORE);
}

SimTime Engine::next_null_message_bound(bool finished) {
  SyncState& s = *sync_;
  const auto ranks_n = static_cast<std::size_t>(ranks());
  if (finished && !s.finish_posted && !stop_) {
    MPI_Ibarrier(s.comm, &s.finish_barrier);
    s.finish_posted = true;
  }

  bool error_seen = false;
  auto receive = [&](int source) {
    MPI_Status status;
    int bytes = 0;
    MPI_Probe(source, kEventTag, s.comm, &status);
    MPI_Get_count(&status, MPI_BYTE, &bytes);
    s.recv_buffer.resize(static_cast<std::size_t>(bytes) / sizeof(Event));
    MPI_Recv(s.recv_buffer.data(), bytes, MPI_BYTE, status.MPI_SOURCE, kEventTag, s.comm, MPI_STATUS_IGNORE);
    const Event& header = s.recv_buffer[0];
    const auto from = static_cast<std::size_t>(status.MPI_SOURCE);
    s.in_clock[from] = std::max(s.in_clock[from], header.time);
    if (header.kind & kFlagFinal) s.final_from[from] = true;
    if (header.kind & kFlagError) error_seen = true;
    deliver(s.recv_buffer.data() + 1, s.recv_buffer.size() - 1);
  };

  for (;;) {
    // Take whatever has arrived.
    for (int flag = 1; flag;) {
      MPI_Iprobe(MPI_ANY_SOURCE, kEventTag, s.comm, &flag, MPI_STATUS_IGNORE);
      if (flag) receive(MPI_ANY_SOURCE);
    }
    if (stop_ || error_seen) {
      // Tell every neighbour once, then meet them in the collective that shares the message.
      for (std::size_t r = 0; r < ranks_n; ++r)
        if (r != static_cast<std::size_t>(rank_) && has_channel(s, r))
          post(s, outbox_[r], static_cast<int>(r), SimTime::infinity(), kFlagError | kFlagFinal);
      complete_finish_barrier();   // every rank reaches it: here or in finish_null_message()
      comm_.max(std::int64_t{1});  // pairs with the check in finish_null_message()
      fail_collectively();
    }
    if (s.finish_posted) {
      int everyone_finished = 0;
      MPI_Test(&s.finish_barrier, &everyone_finished, MPI_STATUS_IGNORE);
      if (everyone_finished) return SimTime::zero();
    }

    const SimTime safe = *std::min_element(s.in_clock.begin(), s.in_clock.end());
    const SimTime horizon = std::min(queue_.top_time(), safe);
    const SimTime bound = std::min(safe, config_.end);
    const bool runnable = queue_.top_time() < bound;
    for (std::size_t r = 0; r < ranks_n; ++r) {
      if (r == static_cast<std::size_t>(rank_) || !has_channel(s, r)) continue;
      const SimTime promise = horizon + s.lookahead_to[r];
      const bool has_events = outbox_[r].size() > 1;
      // While this rank can run, a clock-only message goes out only when the
      // clock moved by a whole lookahead; before blocking, every neighbour
      // must hold the latest clock (that is what rules out deadlock).
      const SimTime threshold = runnable ? s.last_promise[r] + s.lookahead_to[r] : s.last_promise[r];
      if (!has_events && promise <= threshold) continue;
      s.last_promise[r] = std::max(promise, s.last_promise[r]);
      post(s, outbox_[r], static_cast<int>(r), s.last_promise[r], 0);
      ++stats_.messages;
      if (!has_events) ++stats_.null_messages;
    }

    if (runnable) return bound;
    if (horizon >= config_.end) return SimTime::zero();
    if (s.finish_posted)
      std::this_thread::yield();  // poll: messages and the barrier, next time round
    else
      receive(MPI_ANY_SOURCE);  // nothing runnable: wait for a clock to move
  }
}

void Engine::finish_null_message() {
  SyncState& s = *sync_;
  const auto ranks_n = static_cast<std::size_t>(ranks());
  for (std::size_t r = 0; r < ranks_n; ++r)
    if (r != static_cast<std::size_t>(rank_) && has_channel(s, r))
      post(s, outbox_[r], static_cast<int>(r), SimTime::infinity(), kFlagFinal);
  // Drain until every neighbour has said it is finished; what still arrives is
  // at or after `end`, or came after every model finished, and is not run.
  for (std::size_t r = 0; r < ranks_n; ++r) {
    const bool channel_in = r != static_cast<std::size_t>(rank_) && !channel_lookahead(static_cast<int>(r), rank_).is_infinite();
    while (channel_in && !s.final_from[r]) {
      MPI_Status status;
      int bytes = 0;
      MPI_Probe(static_cast<int>(r), kEventTag, s.comm, &status);
      MPI_Get_count(&status, MPI_BYTE, &bytes);
      s.recv_buffer.resize(static_cast<std::size_t>(bytes) / sizeof(Event));
      MPI_Recv(s.recv_buffer.data(), bytes, MPI_BYTE, static_cast<int>(r), kEventTag, s.comm, MPI_STATUS_IGNORE);
      if (s.recv_buffer[0].kind & kFlagFinal) s.final_from[r] = true;
    }
  }
  for (auto& flights : s.in_flight)
    for (auto& flight : flights)
      if (flight.request != MPI_REQUEST_NULL) MPI_Wait(&flight.request, MPI_STATUS_IGNORE);
  complete_finish_barrier();
  // A rank that finished early must still learn of an error raised after it
  // finished, or the failing ranks would wait for it in fail_collectively().
  if (comm_.max(std::int64_t{0}) > 0) fail_collectively();
}

}  // namespace pf::core
