// The error types every layer throws, and the exit status each maps to
// (io/cli/README.md): 2 for bad usage or configuration, 1 for internal errors.
// Messages are one line and say where, what was expected and what was found.
#pragma once

#include <stdexcept>
#include <string>

namespace pf {

class Error : public std::runtime_error {
 public:
  Error(const std::string& message, int exit_code) : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// Bad command line, bad configuration file, impossible parameter combination.
class ConfigError : public Error {
 public:
  explicit ConfigError(const std::string& message) : Error(message, 2) {}
};

// A failure after which a library holds state that cannot be shut down
// cleanly: a parallel HDF5 file whose write failed midway (a full disk), whose
// close or MPI_Finalize would hang or crash. The thrower has already cleaned
// up what it can (removed its temporary file); main() prints the message and
// ends the process at once (MpiSession::exit_now), skipping MPI_Finalize.
// Every rank throws it alike.
class UnrecoverableError : public Error {
 public:
  UnrecoverableError(const std::string& message, int exit_code) : Error(message, exit_code) {}
};

// The simulation itself went wrong (a model broke an engine contract).
class SimulationError : public Error {
 public:
  explicit SimulationError(const std::string& message) : Error(message, 1) {}
};

}  // namespace pf
