// Null-message synchronisation (Chandy-Misra-Bryant) over nonblocking MPI.
//
// Each rank keeps, per source rank, a channel clock: no future event from that
// rank is earlier. It may run every event strictly before the smallest clock
// (strictly: an event arriving at exactly that time could tie-break first).
// Whenever its own horizon h = min(next local event, smallest clock) rises, it
// tells every neighbour "nothing from me before h + lookahead" — on the next
// batch of real events if there is one, else on an empty (null) message. With
// per-LP lookaheads the promise can reach further: nothing pending here reaches
// another rank before min over pending events of (time + its LP's lookahead),
// nor anything yet to arrive before (smallest clock + smallest LP lookahead);
// the promise is the larger of that and h + channel lookahead (both hold). With
// positive lookahead the clocks always advance, so no rank deadlocks; a rank
// blocks in MPI only when it can run nothing and has nothing new to say.
//
// Ending without an end time: a rank whose model reports finished() posts an
// MPI_Ibarrier and from then on never blocks (a blocked rank could not see the
// barrier complete), polling for messages and the barrier instead. When the
// barrier completes every rank has finished, and each stops. Every rank also
// completes the barrier on its way out (end reached, or an error), posting it
// then if it had not, so no request is left pending and no rank waits on it.
// If the model never finishes (its programs deadlock), the queues drain while
// the clocks climb forever; idle ranks then detect quiescence (sync_state.h)
// and the run ends with the model's work unfinished, for the model to report.
#include <algorithm>
#include <thread>

#include "core/mpi_handle.h"
#include "core/sync_state.h"

namespace pf::core {
namespace {

bool has_channel(const std::vector<SimTime>& lookahead_to, std::size_t to) { return !lookahead_to[to].is_infinite(); }

}  // namespace

// Sends outbox_[to] (header + events) without waiting on earlier sends to the
// same rank: a rank blocked on a send while its peer is blocked on one too
// would deadlock once messages are too large for MPI's eager protocol.
static void post(Engine::SyncState& s, std::vector<Event>& box, int to, SimTime clock, EventKind flags) {
  auto& flights = s.in_flight[static_cast<std::size_t>(to)];
  InFlight* slot = nullptr;
  for (auto& flight : flights) {
    int done = 1;
    if (flight.request != MPI_REQUEST_NULL) check_mpi(MPI_Test(&flight.request, &done, MPI_STATUS_IGNORE), "MPI_Test");
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
  check_mpi(MPI_Isend(slot->buffer.data(), static_cast<int>(slot->buffer.size() * sizeof(Event)), MPI_BYTE, to,
                      kEventTag, s.comm, &slot->request),
            "MPI_Isend");
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
  if (model_reports_finished && config_.end.is_infinite())
    check_mpi(MPI_Comm_dup(s.comm, &s.quiet_comm), "MPI_Comm_dup");
  s.min_lp_lookahead = config_.lookahead;
  if (!config_.lp_lookahead.empty())
    s.min_lp_lookahead = *std::min_element(config_.lp_lookahead.begin(), config_.lp_lookahead.end());
}

void Engine::complete_finish_barrier() {
  SyncState& s = *sync_;
  if (!s.reports_finished) return;
  if (!s.finish_posted) {
    check_mpi(MPI_Ibarrier(s.comm, &s.finish_barrier), "MPI_Ibarrier");
    s.finish_posted = true;
  }
  check_mpi(MPI_Wait(&s.finish_barrier, MPI_STATUS_IGNORE), "MPI_Wait");
}

SimTime Engine::next_null_message_bound(bool finished) {
  SyncState& s = *sync_;
  const auto ranks_n = static_cast<std::size_t>(ranks());
  if (finished && !s.finish_posted && !stop_) {
    check_mpi(MPI_Ibarrier(s.comm, &s.finish_barrier), "MPI_Ibarrier");
    s.finish_posted = true;
  }

  bool error_seen = false;
  auto receive = [&](int source) {
    MPI_Status status;
    int bytes = 0;
    check_mpi(MPI_Probe(source, kEventTag, s.comm, &status), "MPI_Probe");
    check_mpi(MPI_Get_count(&status, MPI_BYTE, &bytes), "MPI_Get_count");
    s.recv_buffer.resize(static_cast<std::size_t>(bytes) / sizeof(Event));
    check_mpi(MPI_Recv(s.recv_buffer.data(), bytes, MPI_BYTE, status.MPI_SOURCE, kEventTag, s.comm, MPI_STATUS_IGNORE),
              "MPI_Recv");
    const Event& header = s.recv_buffer[0];
    const auto from = static_cast<std::size_t>(status.MPI_SOURCE);
    s.in_clock[from] = std::max(s.in_clock[from], header.time);
    if (header.kind & kFlagFinal) s.final_from[from] = true;
    if (header.kind & kFlagError) error_seen = true;
    deliver(s.recv_buffer.data() + 1, s.recv_buffer.size() - 1);
    s.events_received += s.recv_buffer.size() - 1;
  };

  for (;;) {
    // Take whatever has arrived.
    for (int flag = 1; flag;) {
      check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, kEventTag, s.comm, &flag, MPI_STATUS_IGNORE), "MPI_Iprobe");
      if (flag) receive(MPI_ANY_SOURCE);
    }
    if (stop_ || error_seen) {
      // Tell every neighbour once, then meet them in the collective that shares the message.
      for (std::size_t r = 0; r < ranks_n; ++r)
        if (r != static_cast<std::size_t>(rank_) && has_channel(lookahead_to_, r))
          post(s, outbox_[r], static_cast<int>(r), SimTime::infinity(), kFlagError | kFlagFinal);
      complete_finish_barrier();   // every rank reaches it: here or in finish_null_message()
      comm_.max(std::int64_t{1});  // pairs with the check in finish_null_message()
      finish_quiescence_rounds();  // as there, after that check
      fail_collectively();
    }
    if (s.finish_posted) {
      int everyone_finished = 0;
      check_mpi(MPI_Test(&s.finish_barrier, &everyone_finished, MPI_STATUS_IGNORE), "MPI_Test");
      if (everyone_finished) return SimTime::zero();
    }

    const SimTime safe = *std::min_element(s.in_clock.begin(), s.in_clock.end());
    const SimTime horizon = std::min(queue_.top_time(), safe);
    const SimTime others = queue_.safe_bound();
    const SimTime reach = std::min({others, promised_bound(horizon, others), safe + s.min_lp_lookahead});
    const SimTime bound = std::min(safe, config_.end);
    const bool runnable = queue_.top_time() < bound;
    for (std::size_t r = 0; r < ranks_n; ++r) {
      if (r == static_cast<std::size_t>(rank_) || !has_channel(lookahead_to_, r)) continue;
      const SimTime promise = std::max(horizon + lookahead_to_[r], reach);
      const bool has_events = outbox_[r].size() > 1;
      // While this rank can run, a clock-only message goes out only when the
      // clock moved by a whole lookahead; before blocking, every neighbour
      // must hold the latest clock (that is what rules out deadlock).
      const SimTime threshold = runnable ? s.last_promise[r] + lookahead_to_[r] : s.last_promise[r];
      if (!has_events && promise <= threshold) continue;
      s.last_promise[r] = std::max(promise, s.last_promise[r]);
      send_floor_[r] = std::max(send_floor_[r], s.last_promise[r]);
      post(s, outbox_[r], static_cast<int>(r), s.last_promise[r], 0);
      ++stats_.messages;
      if (!has_events) ++stats_.null_messages;
    }

    if (runnable) return bound;
    if (horizon >= config_.end) return SimTime::zero();
    const bool idle = queue_.top_time().is_infinite();
    if (idle && s.quiet_comm != MPI_COMM_NULL && quiescent()) return SimTime::zero();
    if (s.finish_posted || (idle && s.quiet_comm != MPI_COMM_NULL))
      std::this_thread::yield();  // poll: messages, the barrier, quiescence rounds
    else
      receive(MPI_ANY_SOURCE);  // nothing runnable: wait for a clock to move
  }
}

bool Engine::quiescent() {
  SyncState& s = *sync_;
  if (s.quiet_request != MPI_REQUEST_NULL) {
    int done = 0;
    check_mpi(MPI_Test(&s.quiet_request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (!done) return false;
    // Every rank sees the same sums, so every rank decides alike, at the same round.
    const bool still = s.quiet_out[0] == s.quiet_last[0] && s.quiet_out[1] == s.quiet_last[1];
    if (still && s.quiet_out[0] == s.quiet_out[1]) return true;
    s.quiet_last[0] = s.quiet_out[0];
    s.quiet_last[1] = s.quiet_out[1];
  }
  // Idle: nothing queued, everything sent has been posted. Snapshot and go.
  s.quiet_in[0] = static_cast<std::int64_t>(stats_.remote_events);
  s.quiet_in[1] = static_cast<std::int64_t>(s.events_received);
  check_mpi(MPI_Iallreduce(s.quiet_in, s.quiet_out, 2, MPI_INT64_T, MPI_SUM, s.quiet_comm, &s.quiet_request),
            "MPI_Iallreduce");
  ++s.quiet_rounds;
  return false;
}

void Engine::finish_quiescence_rounds() {
  // Ranks may have posted different numbers of rounds (a busy rank posts
  // none): bring everyone to the same count so no collective is left pending.
  SyncState& s = *sync_;
  if (s.quiet_comm == MPI_COMM_NULL) return;
  const std::int64_t rounds = comm_.max(s.quiet_rounds);
  for (;;) {
    if (s.quiet_request != MPI_REQUEST_NULL) check_mpi(MPI_Wait(&s.quiet_request, MPI_STATUS_IGNORE), "MPI_Wait");
    if (s.quiet_rounds == rounds) break;
    check_mpi(MPI_Iallreduce(s.quiet_in, s.quiet_out, 2, MPI_INT64_T, MPI_SUM, s.quiet_comm, &s.quiet_request),
              "MPI_Iallreduce");
    ++s.quiet_rounds;
  }
}

void Engine::finish_null_message() {
  SyncState& s = *sync_;
  const auto ranks_n = static_cast<std::size_t>(ranks());
  for (std::size_t r = 0; r < ranks_n; ++r)
    if (r != static_cast<std::size_t>(rank_) && has_channel(lookahead_to_, r))
      post(s, outbox_[r], static_cast<int>(r), SimTime::infinity(), kFlagFinal);
  // Drain until every neighbour has said it is finished; what still arrives is
  // at or after `end`, or came after every model finished, and is not run.
  for (std::size_t r = 0; r < ranks_n; ++r) {
    const bool channel_in = r != static_cast<std::size_t>(rank_) && !channel_lookahead(static_cast<int>(r), rank_).is_infinite();
    while (channel_in && !s.final_from[r]) {
      MPI_Status status;
      int bytes = 0;
      check_mpi(MPI_Probe(static_cast<int>(r), kEventTag, s.comm, &status), "MPI_Probe");
      check_mpi(MPI_Get_count(&status, MPI_BYTE, &bytes), "MPI_Get_count");
      s.recv_buffer.resize(static_cast<std::size_t>(bytes) / sizeof(Event));
      check_mpi(
          MPI_Recv(s.recv_buffer.data(), bytes, MPI_BYTE, static_cast<int>(r), kEventTag, s.comm, MPI_STATUS_IGNORE),
          "MPI_Recv");
      if (s.recv_buffer[0].kind & kFlagFinal) s.final_from[r] = true;
    }
  }
  for (auto& flights : s.in_flight)
    for (auto& flight : flights)
      if (flight.request != MPI_REQUEST_NULL) check_mpi(MPI_Wait(&flight.request, MPI_STATUS_IGNORE), "MPI_Wait");
  complete_finish_barrier();
  // A rank that finished early must still learn of an error raised after it
  // finished, or the failing ranks would wait for it in fail_collectively().
  const bool error = comm_.max(std::int64_t{0}) > 0;
  finish_quiescence_rounds();
  if (error) fail_collectively();
}

}  // namespace pf::core
