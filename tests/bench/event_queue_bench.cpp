// The pending-event store on the classic "hold" benchmark (pop the earliest,
// push one event a random delay later), at pending-set sizes from cache-
// resident to far beyond the caches, in two configurations: the queue as the
// engine uses it (heap while small, ladder buckets past take_back_above) and a
// heap that never hands anything to the ladder. Prints ns per hold and the
// speed-up, and checks both popped the same (time, src, seq) sequence.
//
//   event_queue_bench [HOLDS_PER_SIZE]     (default 4,000,000)
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>

#include "core/event_queue.h"

namespace {

using pf::core::Event;
using pf::core::EventQueue;
using pf::core::LadderTuning;

struct HoldResult {
  double ns_per_hold = 0;
  std::uint64_t digest = 0;  // folded over every popped key: equal means the same order
};

// Delays: exponential with mean 1 us plus 1 in 8 far ones (mean 1 ms), like a
// packet model's mix of next-hop arrivals and chunks queued behind a port.
HoldResult hold(EventQueue& q, std::size_t pending, std::uint64_t holds) {
  std::mt19937_64 rng(pending);
  std::exponential_distribution<double> near(1.0 / 1e6), far(1.0 / 1e9);
  auto delay = [&] { return static_cast<std::int64_t>((rng() % 8 == 0) ? far(rng) : near(rng)); };
  std::uint64_t seq = 0;
  auto make = [&](std::int64_t t) {
    Event e;
    e.time = pf::core::SimTime{t};
    e.src = static_cast<pf::core::LpId>(seq % 1024);
    e.seq = seq++;
    return e;
  };
  for (std::size_t i = 0; i < pending; ++i) q.push(make(delay()));
  HoldResult r;
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t i = 0; i < holds; ++i) {
    Event e;
    q.begin_pop(e);
    r.digest = (r.digest ^ static_cast<std::uint64_t>(e.time.ps) ^ (e.seq << 20)) * 0x100000001B3ull;
    q.push(make(e.time.ps + delay()));
    q.end_pop();
  }
  r.ns_per_hold = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count() /
                  static_cast<double>(holds);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const std::uint64_t holds = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 4000000;
  LadderTuning heap_only;
  heap_only.take_back_above = std::numeric_limits<std::size_t>::max();
  std::printf("%10s %14s %14s %9s %s\n", "pending", "queue ns/hold", "heap ns/hold", "speed-up", "same order");
  for (std::size_t pending : {1u << 10, 1u << 13, 1u << 15, 1u << 17, 1u << 19, 1u << 21}) {
    EventQueue queue;
    EventQueue heap(heap_only);
    const HoldResult a = hold(queue, pending, holds);
    const HoldResult b = hold(heap, pending, holds);
    std::printf("%10zu %14.1f %14.1f %8.2fx %s\n", pending, a.ns_per_hold, b.ns_per_hold,
                b.ns_per_hold / a.ns_per_hold, a.digest == b.digest ? "yes" : "NO");
    if (a.digest != b.digest) return 1;
  }
  return 0;
}
