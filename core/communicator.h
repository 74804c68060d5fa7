// MPI, seen from the rest of preflight: a process session and a communicator
// with the handful of collectives the drivers need. Only core/*.cpp include
// <mpi.h>; models/ and io/ see this header alone (STYLE: locality is decided
// at wiring time, models never know about MPI).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pf::core {

// MPI_Init on construction, MPI_Finalize on destruction. One per process.
class MpiSession {
 public:
  MpiSession(int* argc, char*** argv);
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  [[noreturn]] void abort(int exit_code);
  // Flushes stdio and ends this process with `exit_code`, without
  // MPI_Finalize or atexit handlers: for pf::UnrecoverableError only.
  [[noreturn]] static void exit_now(int exit_code);
};

class Communicator {
 public:
  struct Handle;  // wraps MPI_Comm; defined in core/mpi_handle.h

  static Communicator world();
  static Communicator self();  // a one-rank communicator: a sequential reference run inside an MPI job
  // One rank and no MPI at all: usable without MPI_Init (an engine on it runs
  // the sequential loop; every collective returns this rank's value), so a
  // model's unit tests need no MPI session.
  static Communicator local();

  int rank() const { return rank_; }
  int size() const { return size_; }
  bool is_local() const { return handle_ == nullptr; }
  // Throws pf::SimulationError for a local() communicator, which has none.
  const Handle& handle() const;

  std::uint64_t sum(std::uint64_t value) const;
  std::int64_t min(std::int64_t value) const;
  std::int64_t max(std::int64_t value) const;
  double max(double value) const;
  void barrier() const;
  // Every rank's string, in rank order, on every rank.
  std::vector<std::string> all_gather(const std::string& value) const;
  // MPI_Comm_split (collective): ranks with the same color (>= 0) form one
  // communicator, ordered by key then by rank here. Freed with its last copy.
  Communicator split(int color, int key) const;

 private:
  explicit Communicator(std::shared_ptr<const Handle> handle);
  std::shared_ptr<const Handle> handle_;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace pf::core
