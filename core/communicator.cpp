#include "core/communicator.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/error.h"
#include "core/mpi_handle.h"

namespace pf::core {

void check_mpi(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) length = 0;
  const std::string why =
      length > 0 ? std::string(text, static_cast<std::size_t>(length)) : "MPI error " + std::to_string(rc);
  throw SimulationError(std::string(what) + " failed: " + why);
}

MpiSession::MpiSession(int* argc, char*** argv) {
  int initialized = 0;
  check_mpi(MPI_Initialized(&initialized), "MPI_Initialized");
  if (!initialized) check_mpi(MPI_Init(argc, argv), "MPI_Init");
  // Errors come back as codes we turn into messages, not as aborts inside MPI.
  check_mpi(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
}

MpiSession::~MpiSession() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

void MpiSession::exit_now(int exit_code) {
  std::fflush(stdout);
  std::fflush(stderr);
  std::_Exit(exit_code);
}

void MpiSession::abort(int exit_code) {
  MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::exit(exit_code);
}

Communicator::Communicator(std::shared_ptr<const Handle> handle) : handle_(std::move(handle)) {
  if (!handle_) return;  // local(): rank 0 of 1
  check_mpi(MPI_Comm_rank(handle_->comm, &rank_), "MPI_Comm_rank");
  check_mpi(MPI_Comm_size(handle_->comm, &size_), "MPI_Comm_size");
}

Communicator Communicator::world() { return Communicator(std::make_shared<Handle>(Handle{MPI_COMM_WORLD})); }
Communicator Communicator::self() { return Communicator(std::make_shared<Handle>(Handle{MPI_COMM_SELF})); }
Communicator Communicator::local() { return Communicator(std::shared_ptr<const Handle>()); }

const Communicator::Handle& Communicator::handle() const {
  if (!handle_) throw SimulationError("Communicator::handle: a local communicator has no MPI communicator");
  return *handle_;
}

std::uint64_t Communicator::sum(std::uint64_t value) const {
  if (!handle_) return value;
  std::uint64_t out = 0;
  check_mpi(MPI_Allreduce(&value, &out, 1, MPI_UINT64_T, MPI_SUM, handle_->comm), "MPI_Allreduce (sum)");
  return out;
}

std::int64_t Communicator::min(std::int64_t value) const {
  if (!handle_) return value;
  std::int64_t out = 0;
  check_mpi(MPI_Allreduce(&value, &out, 1, MPI_INT64_T, MPI_MIN, handle_->comm), "MPI_Allreduce (min)");
  return out;
}

std::int64_t Communicator::max(std::int64_t value) const {
  if (!handle_) return value;
  std::int64_t out = 0;
  check_mpi(MPI_Allreduce(&value, &out, 1, MPI_INT64_T, MPI_MAX, handle_->comm), "MPI_Allreduce (max)");
  return out;
}

double Communicator::max(double value) const {
  if (!handle_) return value;
  double out = 0;
  check_mpi(MPI_Allreduce(&value, &out, 1, MPI_DOUBLE, MPI_MAX, handle_->comm), "MPI_Allreduce (max)");
  return out;
}

void Communicator::barrier() const {
  if (handle_) check_mpi(MPI_Barrier(handle_->comm), "MPI_Barrier");
}

std::vector<std::string> Communicator::all_gather(const std::string& value) const {
  if (!handle_) return {value};
  int length = static_cast<int>(value.size());
  std::vector<int> lengths(static_cast<std::size_t>(size_));
  check_mpi(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, handle_->comm), "MPI_Allgather");
  std::vector<int> offsets(lengths.size(), 0);
  int total = 0;
  for (std::size_t i = 0; i < lengths.size(); ++i) {
    offsets[i] = total;
    total += lengths[i];
  }
  std::string joined(static_cast<std::size_t>(total), '\0');
  check_mpi(MPI_Allgatherv(value.data(), length, MPI_CHAR, joined.data(), lengths.data(), offsets.data(), MPI_CHAR,
                           handle_->comm),
            "MPI_Allgatherv");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < lengths.size(); ++i)
    out.push_back(joined.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lengths[i])));
  return out;
}

Communicator Communicator::split(int color, int key) const {
  if (color < 0) throw SimulationError("Communicator::split: color must be >= 0, found " + std::to_string(color));
  if (!handle_) return local();
  MPI_Comm out = MPI_COMM_NULL;
  if (MPI_Comm_split(handle_->comm, color, key, &out) != MPI_SUCCESS)
    throw SimulationError("MPI_Comm_split failed (color " + std::to_string(color) + ")");
  // Unlike world/self, this communicator is ours to free, unless MPI is already gone.
  auto release = [](const Handle* h) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    MPI_Comm comm = h->comm;
    if (!finalized && comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    delete h;
  };
  return Communicator(std::shared_ptr<const Handle>(new Handle{out}, release));
}

}  // namespace pf::core
