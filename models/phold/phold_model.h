// PHOLD: the standard PDES benchmark, with ROSS's semantics (models/phold/README.md).
//
// N LPs start with E events each at lookahead + Exp(mean - lookahead). On each
// event an LP sends exactly one event: with probability `remote` to an LP drawn
// uniformly from all N (itself included), else to itself, at now + lookahead +
// Exp(mean - lookahead); events at or after `end` are dropped. Each LP draws
// from its own random stream, so the events do not depend on the rank count.
//
// This is also the smallest complete model: a newcomer can copy it.
#pragma once

#include <cstdint>
#include <vector>

#include "core/lp_context.h"

namespace pf::models {

struct PholdParams {
  std::uint32_t lps = 2048;
  std::uint32_t start_events = 4;
  double remote = 0.25;
  core::SimTime lookahead = core::SimTime::from_us(0.1);
  core::SimTime mean = core::SimTime::from_us(1.0);
  core::SimTime end = core::SimTime::from_us(2000.0);
  std::uint64_t seed = 1;
};

// Contiguous blocks of LPs per rank (ROSS's default mapping).
std::vector<int> phold_block_mapping(std::uint32_t lps, int ranks);

class PholdModel {
 public:
  // PHOLD's one event: it carries nothing; its arrival is the whole message.
  struct Token {};

  explicit PholdModel(const PholdParams& params);

  // Seeds every local LP's initial events.
  void initialise(core::LpContext& engine);
  void on_event(core::LpContext& engine, const core::Event& event);

  // The model's whole decision, engine-free (the bare-loop benchmark uses it):
  // where LP `lp`, handling an event at `now`, sends its next event, and when.
  struct Hop {
    core::LpId dst;
    core::SimTime at;
  };
  Hop next_hop(core::LpId lp, core::SimTime now);
  core::SimTime initial_time(core::LpId lp) { return next_delay(lp); }
  const PholdParams& params() const { return params_; }

 private:
  // splitmix64: 8 bytes of state per LP, full-period, statistically sound for this use.
  std::uint64_t next_u64(core::LpId lp);
  double next_unit(core::LpId lp);  // uniform in [0, 1)
  core::SimTime next_delay(core::LpId lp);

  PholdParams params_;
  std::vector<std::uint64_t> rng_;
  double exp_mean_ps_;
  std::uint64_t remote_threshold_;  // next_u64() < threshold  <=>  remote
};

inline std::uint64_t PholdModel::next_u64(core::LpId lp) {
  std::uint64_t z = (rng_[lp] += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

inline double PholdModel::next_unit(core::LpId lp) {
  return static_cast<double>(next_u64(lp) >> 11) * 0x1.0p-53;
}

inline PholdModel::Hop PholdModel::next_hop(core::LpId lp, core::SimTime now) {
  core::LpId dst = lp;
  if (next_u64(lp) < remote_threshold_) dst = static_cast<core::LpId>((next_u64(lp) >> 32) * params_.lps >> 32);
  return {dst, now + next_delay(lp)};
}

inline void PholdModel::on_event(core::LpContext& engine, const core::Event& event) {
  const Hop hop = next_hop(event.dst, engine.now());
  if (hop.at < params_.end) engine.send(hop.at, hop.dst, Token{});
}

}  // namespace pf::models
