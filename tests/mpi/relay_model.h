// A test model with a known amount of work and LPs that only serve others:
// the shape of a training run (GPUs with a finite program, switches that
// forward their traffic), small enough to check by counting.
//
// Workers 0..W-1 each do rounds(i) request/reply exchanges: worker i sends a
// request to a partner worker through two forwarders, the partner answers
// through two forwarders, and after a think time worker i starts its next
// round. Forwarders W..W+F-1 only relay. One watchdog LP (the last) holds a
// single event far after the work, so a run that stops when the work is done
// leaves it uncommitted while a run to quiescence commits it.
//
// finished(): every local worker has done all its rounds. Requests and
// replies are the work; each worker folds the ones it commits into its own
// digest, so runs that commit the same work agree whatever else they commit.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/engine.h"

namespace pf::testing {

struct RelayParams {
  std::uint32_t workers = 6;
  std::uint32_t forwarders = 4;
  std::uint32_t rounds = 40;  // worker i does rounds * (1 + i % 3)
  core::SimTime lookahead = core::SimTime::from_ns(200);
  core::SimTime watchdog = core::SimTime::from_us(std::int64_t{1000000});  // 1 s
  // Fault injection: LP `fail_lp` stops the run when it handles an event at
  // or after `fail_after`, by throwing or by Engine::fail.
  core::LpId fail_lp = ~core::LpId{0};
  core::SimTime fail_after = core::SimTime::infinity();
  bool fail_by_throw = true;
  // Deadlock injection: worker `stall_lp` ignores its replies from round
  // `stall_round` on, so it never finishes and the traffic stops.
  core::LpId stall_lp = ~core::LpId{0};
  std::uint32_t stall_round = 0;
};

class RelayModel {
 public:
  explicit RelayModel(const RelayParams& p)
      : p_(p), done_(lps(), 0), finish_time_(lps(), core::SimTime::infinity()), digest_(lps(), 0) {}

  std::uint32_t lps() const { return p_.workers + p_.forwarders + 1; }
  core::LpId watchdog_lp() const { return p_.workers + p_.forwarders; }
  std::uint32_t rounds(core::LpId worker) const { return p_.rounds * (1 + worker % 3); }

  // Workers spread over all ranks but the last (when there are several), so
  // the last rank hosts only forwarders and the watchdog: finished from the start.
  std::vector<int> mapping(int ranks) const {
    std::vector<int> owner(lps());
    const auto worker_ranks = static_cast<std::uint32_t>(ranks > 1 ? ranks - 1 : 1);
    for (core::LpId i = 0; i < p_.workers; ++i) owner[i] = static_cast<int>(i % worker_ranks);
    for (core::LpId j = 0; j < p_.forwarders; ++j) owner[p_.workers + j] = static_cast<int>(j % static_cast<std::uint32_t>(ranks));
    owner[watchdog_lp()] = ranks - 1;
    return owner;
  }

  void initialise(core::Engine& engine) {
    for (core::LpId i = 0; i < p_.workers; ++i) {
      if (!engine.is_local(i)) continue;
      ++unfinished_;
      engine.schedule_initial(p_.lookahead + core::SimTime::from_ns(37 * i), i, Kick{});
    }
    if (engine.is_local(watchdog_lp())) engine.schedule_initial(p_.watchdog, watchdog_lp(), Watchdog{});
  }

  bool finished() const { return unfinished_ == 0; }

  void on_event(core::Engine& engine, const core::Event& event) {
    const core::LpId lp = event.dst;
    if (lp == p_.fail_lp && engine.now() >= p_.fail_after) {
      if (p_.fail_by_throw) throw std::runtime_error("relay LP " + std::to_string(lp) + " broke on purpose");
      engine.fail("relay LP " + std::to_string(lp) + " failed on purpose");
      return;
    }
    switch (event.kind) {
      case core::kind_of<Kick>: start_round(engine, lp, 0); break;
      case core::kind_of<Request>: {
        const Msg msg = event.as<Request>().msg;
        if (msg.hop < 2) return send_leg(engine, lp, Leg::request, msg, msg.hop + 1, core::SimTime::zero());
        fold(lp, event, msg);
        send_leg(engine, lp, Leg::reply, msg, 0, core::SimTime::zero());  // back to the origin, by another route
        break;
      }
      case core::kind_of<Reply>: {
        const Msg msg = event.as<Reply>().msg;
        if (msg.hop < 2) return send_leg(engine, lp, Leg::reply, msg, msg.hop + 1, core::SimTime::zero());
        fold(lp, event, msg);
        if (lp == p_.stall_lp && done_[lp] >= p_.stall_round) break;
        if (++done_[lp] == rounds(lp)) {
          finish_time_[lp] = engine.now();
          --unfinished_;
        } else {
          start_round(engine, lp, done_[lp]);
        }
        break;
      }
      case core::kind_of<Watchdog>: ++watchdog_fired_; break;
      default: throw std::logic_error("relay: unknown event kind");
    }
  }

  // Sum over local workers of their work digests, mixed with the LP id.
  std::uint64_t local_work_digest() const;
  std::uint64_t local_work_events() const { return work_events_; }
  std::uint64_t local_rounds_done() const;
  std::uint64_t watchdog_fired() const { return watchdog_fired_; }
  core::SimTime finish_time(core::LpId worker) const { return finish_time_[worker]; }

 private:
  struct Msg {
    core::LpId origin = 0;
    core::LpId target = 0;
    std::uint32_t round = 0;
    std::uint32_t hop = 0;  // where on its leg: at forwarder 0 or 1, or 2 = at the leg's end
  };
  // The events: a worker's first round, a request or reply on its way, the watchdog.
  struct Kick {};
  struct Request {
    Msg msg;
  };
  struct Reply {
    Msg msg;
  };
  struct Watchdog {};
  enum class Leg { request, reply };

  static std::uint32_t mix(std::uint32_t a, std::uint32_t b) { return (a * 2654435761u) ^ (b * 40503u + 0x9E37u); }

  // A worker's requests go out via forwarders a then b, the reply comes back
  // via b then a's neighbour: both legs cross ranks whenever F spans them.
  core::LpId route(const Msg& m, Leg leg_kind, std::uint32_t hop) const {
    const std::uint32_t first = mix(m.origin, m.round) % p_.forwarders;
    const std::uint32_t second = (first + 1 + mix(m.round, m.origin) % (p_.forwarders - 1)) % p_.forwarders;
    const std::uint32_t leg[2][2] = {{first, second}, {second, (first + 1) % p_.forwarders}};
    return p_.workers + leg[leg_kind == Leg::reply][hop];
  }

  void start_round(core::Engine& engine, core::LpId worker, std::uint32_t round) {
    const Msg m{worker, (worker + 1 + mix(worker, round) % (p_.workers - 1)) % p_.workers, round, 0};
    send_leg(engine, worker, Leg::request, m, 0, core::SimTime::from_ns(1000 + 250 * (mix(round, worker) % 4)));
  }

  // Sends `m` on from `lp` to its next stop: forwarder `hop` (0 or 1) of the
  // leg, or the leg's end (hop 2), one lookahead plus a jitter later.
  void send_leg(core::Engine& engine, core::LpId lp, Leg leg, Msg m, std::uint32_t hop, core::SimTime think) {
    m.hop = hop;
    const core::LpId to = hop < 2 ? route(m, leg, hop) : (leg == Leg::request ? m.target : m.origin);
    const core::SimTime jitter = core::SimTime::from_ns(20 * (mix(lp, m.round * 4 + hop) % 11));
    const core::SimTime at = engine.now() + think + p_.lookahead + jitter;
    if (leg == Leg::request) {
      engine.send(at, to, Request{m});
    } else {
      engine.send(at, to, Reply{m});
    }
  }

  void fold(core::LpId lp, const core::Event& event, const Msg& m) {
    std::uint64_t x = digest_[lp] ^ (static_cast<std::uint64_t>(event.time.ps) * 0x9E3779B97F4A7C15ull +
                                     (std::uint64_t{event.kind} << 48) + (std::uint64_t{m.origin} << 32) + m.round);
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    digest_[lp] = x ^ (x >> 31);
    ++work_events_;
  }

  RelayParams p_;
  std::vector<std::uint32_t> done_;          // per worker: rounds completed
  std::vector<core::SimTime> finish_time_;   // per worker: when its last reply came
  std::vector<std::uint64_t> digest_;        // per worker
  std::uint32_t unfinished_ = 0;             // local workers with rounds left
  std::uint64_t work_events_ = 0;
  std::uint64_t watchdog_fired_ = 0;
};

inline std::uint64_t RelayModel::local_work_digest() const {
  std::uint64_t sum = 0;
  for (core::LpId i = 0; i < p_.workers; ++i)
    if (digest_[i] != 0) sum += (digest_[i] ^ (std::uint64_t{i} + 1)) * 0xFF51AFD7ED558CCDull;
  return sum;
}

inline std::uint64_t RelayModel::local_rounds_done() const {
  std::uint64_t sum = 0;
  for (core::LpId i = 0; i < p_.workers; ++i) sum += done_[i];
  return sum;
}

}  // namespace pf::testing
