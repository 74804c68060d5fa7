// Window synchronisation (YAWNS-style), one collective per window.
//
// At the end of a window each rank posts its batched remote events (one
// message per destination rank) and joins a single MPI_Allreduce whose vector
// carries, in one go: the minimum over ranks of min(next local event, earliest
// outgoing event) = the global virtual time T; an error flag; and, per rank,
// how many messages are on their way to it. Each rank then receives exactly
// that many messages and may run everything before T + lookahead. Empty
// stretches of simulated time cost one reduction, not one per lookahead tick.
#include <algorithm>

#include "core/sync_state.h"

namespace pf::core {
namespace {

// Element 0: minimum (next event time); elements 1..: sums (error flag, counts).
void min_then_sum(void* in, void* inout, int* length, MPI_Datatype*) {
  const auto* a = static_cast<const std::int64_t*>(in);
  auto* b = static_cast<std::int64_t*>(inout);
  b[0] = std::min(a[0], b[0]);
  for (int i = 1; i < *length; ++i) b[i] += a[i];
}

}  // namespace

SimTime Engine::next_window_bound() {
  SyncState& s = *sync_;
  const auto ranks_n = static_cast<std::size_t>(ranks());
  if (s.window_op == MPI_OP_NULL) {
    MPI_Op_create(&min_then_sum, /*commute=*/1, &s.window_op);
    s.reduce_in.assign(2 + ranks_n, 0);
    s.reduce_out.assign(2 + ranks_n, 0);
  }

  // A fast rank can post window k+1's batches while a slow one is still
  // receiving window k's; alternating tags keep the two apart (a rank is never
  // more than one window ahead: it cannot pass the next reduction alone).
  const int tag = kEventTag + static_cast<int>(stats_.windows & 1);
  std::int64_t local_min = queue_.top_time().ps;
  std::fill(s.reduce_in.begin() + 2, s.reduce_in.end(), 0);
  s.window_requests.clear();
  for (std::size_t r = 0; r < ranks_n; ++r) {
    std::vector<Event>& box = outbox_[r];
    if (box.size() <= 1) continue;
    for (std::size_t i = 1; i < box.size(); ++i) local_min = std::min(local_min, box[i].time.ps);
    box[0].kind = 0;
    s.window_requests.emplace_back();
    MPI_Isend(box.data(), static_cast<int>(box.size() * sizeof(Event)), MPI_BYTE, static_cast<int>(r), tag, s.comm,
              &s.window_requests.back());
    s.reduce_in[2 + r] = 1;
    ++stats_.messages;
  }
  s.reduce_in[0] = local_min;
  s.reduce_in[1] = stop_ ? 1 : 0;
  MPI_Allreduce(s.reduce_in.data(), s.reduce_out.data(), static_cast<int>(s.reduce_in.size()), MPI_INT64_T,
                s.window_op, s.comm);

  const std::int64_t incoming = s.reduce_out[2 + static_cast<std::size_t>(rank_)];
  for (std::int64_t i = 0; i < incoming; ++i) {
    MPI_Status status;
    MPI_Probe(MPI_ANY_SOURCE, tag, s.comm, &status);
    int bytes = 0;
    MPI_Get_count(&status, MPI_BYTE, &bytes);
    s.recv_buffer.resize(static_cast<std::size_t>(bytes) / sizeof(Event));
    MPI_Recv(s.recv_buffer.data(), bytes, MPI_BYTE, status.MPI_SOURCE, tag, s.comm, MPI_STATUS_IGNORE);
    deliver(s.recv_buffer.data() + 1, s.recv_buffer.size() - 1);
  }
  MPI_Waitall(static_cast<int>(s.window_requests.size()), s.window_requests.data(), MPI_STATUSES_IGNORE);
  for (auto& box : outbox_) box.resize(1);
  ++stats_.windows;

  if (s.reduce_out[1] != 0) fail_collectively();
  const SimTime gvt{s.reduce_out[0]};
  if (gvt >= config_.end) return SimTime::zero();
  return std::min(gvt + config_.lookahead, config_.end);
}

}  // namespace pf::core
