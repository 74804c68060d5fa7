#include "models/phold/phold_model.h"

#include <cmath>

namespace pf::models {

std::vector<int> phold_block_mapping(std::uint32_t lps, int ranks) {
  std::vector<int> owner(lps);
  for (std::uint32_t lp = 0; lp < lps; ++lp)
    owner[lp] = static_cast<int>(static_cast<std::uint64_t>(lp) * static_cast<std::uint64_t>(ranks) / lps);
  return owner;
}

PholdModel::PholdModel(const PholdParams& params)
    : params_(params),
      rng_(params.lps),
      exp_mean_ps_(static_cast<double>((params.mean - params.lookahead).ps)) {
  // Each LP's stream starts at a hashed point of splitmix64's 2^64-long cycle.
  // (Seeding with seed + lp * increment would make LP k's stream LP 0's shifted
  // by k draws: 8,192 chains that are one chain, and a total count that strays
  // several standard deviations.)
  for (std::uint32_t lp = 0; lp < params.lps; ++lp) {
    rng_[lp] = params.seed ^ (std::uint64_t{lp} << 32);
    rng_[lp] = next_u64(lp);
  }
  // remote == 1.0 must always be remote: saturate instead of overflowing.
  remote_threshold_ = params.remote >= 1.0 ? ~std::uint64_t{0}
                                           : static_cast<std::uint64_t>(std::ldexp(params.remote, 64));
}

core::SimTime PholdModel::next_delay(core::LpId lp) {
  // Exponential by inversion; 1 - u is in (0, 1], so the log is finite.
  const double exp_ps = -exp_mean_ps_ * std::log(1.0 - next_unit(lp));
  return params_.lookahead + core::SimTime{static_cast<std::int64_t>(exp_ps)};
}

void PholdModel::initialise(core::LpContext& engine) {
  for (core::LpId lp = 0; lp < params_.lps; ++lp) {
    if (!engine.is_local(lp)) continue;
    for (std::uint32_t e = 0; e < params_.start_events; ++e) {
      const core::SimTime at = next_delay(lp);
      if (at < params_.end) engine.schedule_initial(at, lp, Token{});
    }
  }
}

}  // namespace pf::models
