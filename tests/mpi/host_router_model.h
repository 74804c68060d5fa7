// The host/router test model of engine_lp_lookahead_test.cpp, shared with
// engine_window_projection_test.cpp: routers forward packets between each
// other and to their hosts; hosts compute (self events) and now and then send
// a packet through their router. Hosts reach other ranks only through their
// router, as GPUs reach other ranks only through NICs and switches.
#pragma once

#include <cstdint>
#include <vector>

#include "core/engine.h"

namespace pf::testing {

inline std::uint32_t mix(std::uint32_t a, std::uint32_t b) {
  std::uint32_t x = a * 2654435761u ^ (b + 0x9E3779B9u + (a << 6) + (a >> 2));
  x ^= x >> 15;
  x *= 0x2C1B3C6Du;
  return x ^ (x >> 12);
}

// What the engine tests compare between runs of the model.
struct RunOutcome {
  std::uint64_t events, digest, windows;
};

// Routers 0..R-1 forward packets to each other and to their hosts (kHop each);
// hosts R.. compute (self events) and now and then send a packet for a random
// host to their router, `host_link` later. Hosts live on their router's rank.
struct HostRouterModel final : core::PromiseSource {
  static constexpr std::uint32_t kRouters = 8, kHostsPerRouter = 6;
  core::SimTime hop = core::SimTime::from_ns(100);
  core::SimTime host_link = core::SimTime::from_ns(2000);  // what the host really takes to reach its router
  std::vector<std::uint32_t> count = std::vector<std::uint32_t>(lps(), 0);
  // Dynamic lookahead (core/promise_board.h): hosts send their kernel ends
  // as quiet events and promise the next kernel end that sends a packet,
  // `promise_late` later than the truth (a broken promise when positive).
  bool promises = false;
  core::SimTime promise_late;
  std::vector<core::SimTime> next_compute = std::vector<core::SimTime>(lps());
  std::uint32_t send_one_in = 8;  // kernels per packet a host sends, on average
  bool quiet_to_router = false;    // hosts send their packets as quiet events (a broken contract)
  // After a kernel end (quiet), leave the last promise standing
  // (LpContext::defer_promise); the engine asks current_promise when it binds.
  bool defer = false;
  std::uint64_t promises_worked_out = 0;  // next_send() calls for a promise
  // Routers send a packet's last hop, to its host, as a silent event
  // (LpContext::send_silent): a host's delivery sends nothing, and its hosts
  // number their kernels apart from deliveries (kernels), so that a delivery
  // moves no later send sooner...
  bool silent_deliveries = false;
  bool kernels_apart = true;  // false: deliveries still renumber the kernels (a broken contract)
  std::vector<std::uint32_t> kernels = std::vector<std::uint32_t>(lps(), 0);
  bool break_silence = false;  // ...unless this is set: it then answers its router (a broken contract)

  struct Packet {
    core::LpId to_host;
  };
  struct Compute {};  // a host's kernel ends

  static std::uint32_t lps() { return kRouters * (1 + kHostsPerRouter); }
  // Each local host's first kernel, staggered.
  static void seed(core::Engine& engine) {
    for (core::LpId lp = kRouters; lp < lps(); ++lp)
      if (engine.is_local(lp)) engine.schedule_initial(core::SimTime::from_ns(lp * 37), lp, Compute{});
  }
  static core::LpId router_of(core::LpId host) { return (host - kRouters) / kHostsPerRouter; }
  static bool is_router(core::LpId lp) { return lp < kRouters; }

  static std::vector<int> mapping(int ranks) {
    std::vector<int> owner(lps());
    for (core::LpId lp = 0; lp < lps(); ++lp)
      owner[lp] = static_cast<int>((is_router(lp) ? lp : router_of(lp)) * static_cast<std::uint32_t>(ranks) / kRouters);
    return owner;
  }
  // What the model honours: routers may send to another rank after one hop;
  // a host's events reach another rank at the soonest via its router.
  std::vector<core::SimTime> lp_lookahead(core::SimTime host_declared) const {
    std::vector<core::SimTime> l(lps());
    for (core::LpId lp = 0; lp < lps(); ++lp) l[lp] = is_router(lp) ? hop : host_declared + hop;
    return l;
  }

  void on_event(core::LpContext& engine, const core::Event& event) {
    const core::LpId lp = event.dst;
    std::uint32_t n = ++count[lp];
    const core::SimTime jitter = core::SimTime::from_ns(mix(lp, n) % 300);
    if (is_router(lp)) {
      const core::LpId to_host = event.as<Packet>().to_host;
      const core::LpId next = router_of(to_host) == lp ? to_host : router_of(to_host);
      if (silent_deliveries && next == to_host)
        engine.send_silent(engine.now() + hop + jitter, next, Packet{to_host});
      else
        engine.send(engine.now() + hop + jitter, next, Packet{to_host});
      return;
    }
    if (event.kind == core::kind_of<Packet>) {  // delivered: the commit itself is what the digest records
      if (break_silence) engine.send(engine.now() + host_link, router_of(lp), Packet{lp});
      if (promises) state_promise(engine, lp, false);
      return;
    }
    // Compute for 1..5 us; one kernel in `send_one_in` ends by sending a packet.
    if (silent_deliveries && kernels_apart) n = ++kernels[lp];
    next_compute[lp] = engine.now() + duration(lp, n);
    if (promises)
      engine.send_quiet(next_compute[lp], Compute{});
    else
      engine.send(next_compute[lp], lp, Compute{});
    if (sends(lp, n)) {
      const core::LpId to_host = kRouters + mix(n, lp * 7) % (kRouters * kHostsPerRouter);
      if (quiet_to_router)
        engine.send_quiet_to(engine.now() + host_link + jitter, router_of(lp), Packet{to_host});
      else
        engine.send(engine.now() + host_link + jitter, router_of(lp), Packet{to_host});
    }
    if (promises) state_promise(engine, lp, true);
  }

  void state_promise(core::LpContext& engine, core::LpId lp, bool after_quiet) {
    if (after_quiet && defer && engine.defer_promise()) return;
    ++promises_worked_out;
    engine.promise(next_send(lp));
  }
  core::SimTime current_promise(core::LpId lp) override {
    ++promises_worked_out;
    return next_send(lp);
  }

  static core::SimTime duration(core::LpId lp, std::uint32_t n) { return core::SimTime::from_ns(1000 + mix(n, lp) % 4000); }
  bool sends(core::LpId lp, std::uint32_t n) const { return mix(lp, n * 3) % send_one_in == 0; }
  // The host's next kernel end that sends, if no packet arrives first (each
  // arrival counts too, and the host promises again after it).
  core::SimTime next_send(core::LpId lp) const {
    core::SimTime t = next_compute[lp];
    for (std::uint32_t n = (silent_deliveries && kernels_apart ? kernels[lp] : count[lp]) + 1;; ++n) {
      if (sends(lp, n)) return t + promise_late;
      t += duration(lp, n);
    }
  }
};


}  // namespace pf::testing
