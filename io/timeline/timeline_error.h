// Errors of the timeline writer and reader. Inconsistent input from the
// simulation (an event on a GPU another rank owns, an unknown kind) is a
// pf::SimulationError (exit 1): a bug, not the user's doing.
#pragma once

#include <string>

#include "core/error.h"

namespace pf::timeline {

// The output directory or file cannot be created or written (exit 2: the
// user's output.dir or file system, not the simulation, is at fault). A
// ConfigError, so that when every rank throws it only rank 0 prints it.
class TimelineOutputError : public ConfigError {
 public:
  explicit TimelineOutputError(const std::string& message) : ConfigError(message) {}
};

// An HDF5 call failed (h5::check, h5::checked). For the writer this means
// the library's state may be inconsistent across ranks (timeline_writer.cpp).
class Hdf5CallError : public TimelineOutputError {
 public:
  explicit Hdf5CallError(const std::string& message) : TimelineOutputError(message) {}
};

// A file given to a reader is missing, not HDF5, or not a preflight timeline.
class TimelineFormatError : public ConfigError {
 public:
  explicit TimelineFormatError(const std::string& message) : ConfigError(message) {}
};

}  // namespace pf::timeline
