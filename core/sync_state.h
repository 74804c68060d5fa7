// Internal to core/: the MPI-side state of the two synchronisation modes.
#pragma once

#include <mpi.h>

#include <vector>

#include "core/engine.h"
#include "core/mpi_handle.h"

namespace pf::core {

// Every MPI message between engines is an array of Events whose first element
// is a header: time = the sender's channel clock (null_message mode), kind =
// flags. The rest are the events themselves, sent straight from the outbox.
inline constexpr int kEventTag = 7001;
inline constexpr EventKind kFlagFinal = 1;  // the sender has finished: nothing more follows
inline constexpr EventKind kFlagError = 2;  // the sender stopped on an error

struct InFlight {
  std::vector<Event> buffer;
  MPI_Request request = MPI_REQUEST_NULL;
};

struct Engine::SyncState {
  MPI_Comm comm = MPI_COMM_NULL;

  // window mode
  MPI_Op window_op = MPI_OP_NULL;
  std::vector<std::int64_t> reduce_in, reduce_out;
  std::vector<MPI_Request> window_requests;

  // null_message mode
  std::vector<SimTime> in_clock;          // per source rank: no future event from it is earlier
  std::vector<SimTime> last_promise;      // per destination rank: the clock we last sent
  std::vector<std::vector<InFlight>> in_flight;  // per destination rank
  std::vector<bool> final_from;           // per source rank
  SimTime min_lp_lookahead;               // the smallest lookahead of any LP
  // Ending on finished(): every rank posts one MPI_Ibarrier when its model
  // first reports finished (or, at the latest, when its run ends), so the
  // barrier completes exactly when every rank has finished.
  bool reports_finished = false;          // the model has finished(); same on every rank
  bool finish_posted = false;
  MPI_Request finish_barrier = MPI_REQUEST_NULL;

  // Quiescence, for a run that must end on finished() but never will (the
  // model's programs deadlock): a rank with nothing to run posts rounds of an
  // MPI_Iallreduce of (events sent, events received) on a communicator of
  // their own; two completed rounds in a row with equal sums, sent ==
  // received, mean no event exists anywhere and none can appear: the run ends
  // and the model reports what is unfinished.
  MPI_Comm quiet_comm = MPI_COMM_NULL;
  MPI_Request quiet_request = MPI_REQUEST_NULL;
  std::int64_t quiet_in[2] = {0, 0}, quiet_out[2] = {0, 0}, quiet_last[2] = {-1, -2};
  std::int64_t quiet_rounds = 0;          // rounds this rank has posted
  std::uint64_t events_received = 0;      // remote events delivered here

  std::vector<Event> recv_buffer;
};

}  // namespace pf::core
