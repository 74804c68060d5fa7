#include "io/timeline/collective_step.h"

#include <cstdint>
#include <limits>

#include "core/error.h"
#include "io/timeline/timeline_error.h"

namespace pf::timeline {

void CollectiveSteps::run(std::string_view name, const std::function<void()>& work) {
  std::string message;
  int exit_code = 0;
  bool hdf5_failed = false;
  try {
    work();
    if (after_step_) after_step_(name);
  } catch (const Hdf5CallError& e) {
    message = e.what();
    exit_code = e.exit_code();
    hdf5_failed = true;
  } catch (const Error& e) {
    message = e.what();
    exit_code = e.exit_code() == 0 ? 1 : e.exit_code();
  } catch (const std::exception& e) {
    message = "timeline: " + std::string(name) + ": " + e.what();
    exit_code = 1;
  } catch (...) {
    message = "timeline: " + std::string(name) + ": unknown exception";
    exit_code = 1;
  }
  // One reduction when all went well; the failure path also shares the message.
  const std::int64_t no_failure = std::numeric_limits<std::int64_t>::max();
  const std::int64_t first_failed = comm_.min(exit_code != 0 ? comm_.rank() : no_failure);
  if (first_failed == no_failure) return;
  rethrow_agreed(first_failed, message, exit_code, hdf5_failed);
}

void CollectiveSteps::rethrow_agreed(std::int64_t first_failed, const std::string& message, int exit_code,
                                     bool hdf5_failed) const {
  // Each rank's "<exit code><h if an HDF5 call failed there> <message>".
  const std::vector<std::string> messages =
      comm_.all_gather(std::to_string(exit_code) + (hdf5_failed ? "h" : "") + ' ' + message);
  bool any_hdf5 = false;
  for (const std::string& m : messages) any_hdf5 = any_hdf5 || m.substr(0, m.find(' ')).back() == 'h';
  const std::string& chosen = messages[static_cast<std::size_t>(first_failed)];
  const std::size_t space = chosen.find(' ');
  const int code = std::stoi(chosen.substr(0, space));
  std::string text = chosen.substr(space + 1);
  if (comm_.size() > 1) text += " [rank " + std::to_string(first_failed) + "]";
  // Exit status 2 (output problems) is a pf::ConfigError: main() prints it once, from rank 0.
  if (any_hdf5) throw Hdf5CallError(text);
  if (code == 2) throw TimelineOutputError(text);
  throw SimulationError(text);
}

}  // namespace pf::timeline
