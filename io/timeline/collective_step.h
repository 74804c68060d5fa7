// Internal to io/timeline: runs one step of a collective operation on every
// rank and makes all ranks agree on its outcome. A step that fails on one
// rank (bad input, a file system error, an exception from a hook) makes every
// rank throw the same error at the same point, so that the next collective
// HDF5 call is entered by all ranks or by none: nobody hangs.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <string>
#include <string_view>

#include "core/communicator.h"

namespace pf::timeline {

class CollectiveSteps {
 public:
  using Hook = std::function<void(std::string_view step)>;
  CollectiveSteps(const core::Communicator& comm, Hook after_step) : comm_(comm), after_step_(std::move(after_step)) {}

  // Runs `work`, then the hook with `name`; throws on every rank if either
  // threw on any rank. The error is the first failing rank's: its message and
  // its exit status (2 for output problems, 1 for anything else).
  void run(std::string_view name, const std::function<void()>& work);

 private:
  // An HDF5 call failing on any rank makes it an Hdf5CallError everywhere.
  [[noreturn]] void rethrow_agreed(std::int64_t first_failed, const std::string& message, int exit_code,
                                   bool hdf5_failed) const;
  const core::Communicator& comm_;
  Hook after_step_;
};

}  // namespace pf::timeline
