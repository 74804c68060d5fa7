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

// The simulation itself went wrong (a model broke an engine contract).
class SimulationError : public Error {
 public:
  explicit SimulationError(const std::string& message) : Error(message, 1) {}
};

}  // namespace pf
