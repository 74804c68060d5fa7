// Seeded Latin-hypercube samples of the priors (McKay, Beckman & Conover,
// Technometrics 1979): each parameter's range is cut into N equally likely
// strata and every stratum is used exactly once, in an order shuffled
// independently per parameter, so N samples cover each marginal evenly with
// far fewer runs than plain Monte Carlo needs.
//
// Everything is a pure function of (seed, N, parameter count): every MPI rank
// draws the same samples, so the band does not depend on how many ranks run.
#pragma once

#include <cstdint>
#include <vector>

namespace pf::models::uncertainty {

// N x P points in [0, 1): point i, coordinate p in stratum [k/N, (k+1)/N)
// where k runs over 0..N-1 exactly once per p.
std::vector<std::vector<double>> latin_hypercube(int samples, int parameters, std::uint64_t seed);

// The inverse CDF of the triangular distribution with mode 1 on [low, high]
// (low <= 1 <= high) at u in [0, 1]; 1 when low == high == 1.
double triangular_multiplier(double u, double low, double high);

}  // namespace pf::models::uncertainty
