// The last few (collective, bytes) durations of one group, for the
// closed-form collectives (server_collective.h, cross_server_collective.h):
// a group repeats the same two or three calls every layer, and NCCL's tuning
// model behind a duration costs more than the rest of a rendezvous.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "models/workload/op.h"

namespace pf::models::training {

class DurationMemo {
 public:
  // The duration of (op, bytes): remembered, or compute() (seconds) remembered
  // in place of the oldest entry (round robin).
  template <typename Compute>
  double seconds(workload::Collective op, std::uint64_t bytes, Compute&& compute) {
    for (const Entry& e : entries_)
      if (e.op == op && e.bytes == bytes) return e.seconds;
    Entry& e = entries_[next_];
    next_ = (next_ + 1) % kEntries;
    e = {op, bytes, compute()};
    return e.seconds;
  }

 private:
  struct Entry {
    workload::Collective op = workload::Collective::none;
    std::uint64_t bytes = 0;
    double seconds = 0;
  };
  static constexpr std::size_t kEntries = 4;
  std::array<Entry, kEntries> entries_{};
  std::size_t next_ = 0;
};

}  // namespace pf::models::training
