// Events for the queue tests: built from their ordering fields, and the
// (time, src, seq) key they must come out in.
#pragma once

#include <cstdint>
#include <tuple>

#include "core/event.h"

namespace pf::core::test {

inline Event make(std::int64_t time_ps, LpId src, std::uint64_t seq, LpId dst = 0) {
  Event e;
  e.time = SimTime{time_ps};
  e.src = src;
  e.seq = seq;
  e.dst = dst;
  return e;
}

inline auto key(const Event& e) { return std::make_tuple(e.time.ps, e.src, e.seq); }

}  // namespace pf::core::test
