// Window synchronisation (YAWNS-style), one collective per window.
//
// At the end of a window each rank posts its batched remote events (one
// message per destination rank) and joins a single MPI_Allreduce whose vector
// carries, in one go: the minimum over ranks of min(next local event, earliest
// outgoing event) = the global virtual time T (the run ends when T reaches
// `end`); the minimum over ranks of the same events' time + their LP's
// lookahead = the bound B, before which no event can reach another rank; an
// error flag; and, per rank, how many messages are on their way to it. Each
// rank then receives exactly that many messages and may run everything before
// B. With one lookahead for every LP, B = T + lookahead (YAWNS); with per-LP
// lookaheads B moves further whenever the LPs next to cut links are idle; an
// LP's quiet events count at the LP's promise instead of their own times
// (core/promise_board.h: a third minimum in the same reduction).
// Empty stretches of simulated time cost one reduction, not one per tick.
#include <algorithm>

#include "core/mpi_handle.h"
#include "core/sync_state.h"

namespace pf::core {
namespace {

// The reduction vector: three minima, then sums (error flag, per-rank counts).
enum : std::size_t { kNextTime, kBound, kPromised, kError, kCounts };

void min_then_sum(void* in, void* inout, int* length, MPI_Datatype*) {
  const auto* a = static_cast<const std::int64_t*>(in);
  auto* b = static_cast<std::int64_t*>(inout);
  b[kNextTime] = std::min(a[kNextTime], b[kNextTime]);
  b[kBound] = std::min(a[kBound], b[kBound]);
  b[kPromised] = std::min(a[kPromised], b[kPromised]);
  for (int i = kError; i < *length; ++i) b[i] += a[i];
}

}  // namespace

SimTime Engine::next_window_bound() {
  SyncState& s = *sync_;
  const auto ranks_n = static_cast<std::size_t>(ranks());
  if (s.window_op == MPI_OP_NULL) {
    check_mpi(MPI_Op_create(&min_then_sum, /*commute=*/1, &s.window_op), "MPI_Op_create");
    s.reduce_in.assign(kCounts + ranks_n, 0);
    s.reduce_out.assign(kCounts + ranks_n, 0);
  }

  // A fast rank can post window k+1's batches while a slow one is still
  // receiving window k's; alternating tags keep the two apart (a rank is never
  // more than one window ahead: it cannot pass the next reduction alone).
  const int tag = kEventTag + static_cast<int>(stats_.windows & 1);
  SimTime local_min = queue_.top_time();
  SimTime local_bound = queue_.safe_bound();
  std::fill(s.reduce_in.begin() + kCounts, s.reduce_in.end(), 0);
  s.window_requests.clear();
  for (std::size_t r = 0; r < ranks_n; ++r) {
    std::vector<Event>& box = outbox_[r];
    if (box.size() <= 1) continue;
    for (std::size_t i = 1; i < box.size(); ++i) {
      local_min = std::min(local_min, box[i].time);
      // A silent event bounds nothing where it lands (kSilentEvent).
      if (!(box[i].flags & kSilentEvent))
        local_bound = std::min(local_bound, box[i].time + queue_.lookahead_of(box[i].dst));
    }
    box[0].kind = 0;
    s.window_requests.emplace_back();
    check_mpi(MPI_Isend(box.data(), static_cast<int>(box.size() * sizeof(Event)), MPI_BYTE, static_cast<int>(r), tag,
                        s.comm, &s.window_requests.back()),
              "MPI_Isend");
    s.reduce_in[kCounts + r] = 1;
    ++stats_.messages;
  }
  s.reduce_in[kNextTime] = local_min.ps;
  s.reduce_in[kBound] = local_bound.ps;
  s.reduce_in[kPromised] = settled_earliest_output(local_bound).ps;
  s.reduce_in[kError] = stop_ ? 1 : 0;
  check_mpi(MPI_Allreduce(s.reduce_in.data(), s.reduce_out.data(), static_cast<int>(s.reduce_in.size()),
                          MPI_INT64_T, s.window_op, s.comm),
            "MPI_Allreduce");

  const std::int64_t incoming = s.reduce_out[kCounts + static_cast<std::size_t>(rank_)];
  for (std::int64_t i = 0; i < incoming; ++i) {
    MPI_Status status;
    check_mpi(MPI_Probe(MPI_ANY_SOURCE, tag, s.comm, &status), "MPI_Probe");
    int bytes = 0;
    check_mpi(MPI_Get_count(&status, MPI_BYTE, &bytes), "MPI_Get_count");
    s.recv_buffer.resize(static_cast<std::size_t>(bytes) / sizeof(Event));
    check_mpi(MPI_Recv(s.recv_buffer.data(), bytes, MPI_BYTE, status.MPI_SOURCE, tag, s.comm, MPI_STATUS_IGNORE),
              "MPI_Recv");
    deliver(s.recv_buffer.data() + 1, s.recv_buffer.size() - 1);
  }
  check_mpi(MPI_Waitall(static_cast<int>(s.window_requests.size()), s.window_requests.data(), MPI_STATUSES_IGNORE),
            "MPI_Waitall");
  for (auto& box : outbox_) box.resize(1);
  ++stats_.windows;

  if (s.reduce_out[kError] != 0) fail_collectively();
  const SimTime gvt{s.reduce_out[kNextTime]};
  if (gvt >= config_.end) return SimTime::zero();
  // Quiet events are left out of kBound: their LPs' promises stand for them,
  // never below what an LP can do after the earliest pending event.
  const SimTime promised = std::max(SimTime{s.reduce_out[kPromised]}, gvt + min_lookahead_);
  const SimTime bound = std::min({SimTime{s.reduce_out[kBound]}, promised, config_.end});
  for (std::size_t r = 0; r < ranks_n; ++r)
    send_floor_[r] = lookahead_to_[r].is_infinite() ? SimTime::infinity() : bound;
  return bound;
}

}  // namespace pf::core
