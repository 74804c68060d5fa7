#include "models/uncertainty/latin_hypercube.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "core/mix64.h"

namespace pf::models::uncertainty {
namespace {

// A counter-based stream: draw k of (seed, parameter) is mix64 of their mix,
// so no state is shared between parameters.
class Stream {
 public:
  Stream(std::uint64_t seed, std::uint64_t parameter) : key_(core::mix64(seed ^ core::mix64(parameter + 1))) {}
  std::uint64_t next() { return core::mix64(key_ + counter_++); }
  // Uniform in [0, 1) from the top 53 bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t key_;
  std::uint64_t counter_ = 0;
};

}  // namespace

std::vector<std::vector<double>> latin_hypercube(int samples, int parameters, std::uint64_t seed) {
  std::vector<std::vector<double>> points(static_cast<std::size_t>(std::max(samples, 0)),
                                          std::vector<double>(static_cast<std::size_t>(std::max(parameters, 0))));
  for (int p = 0; p < parameters; ++p) {
    Stream s(seed, static_cast<std::uint64_t>(p));
    std::vector<int> strata(static_cast<std::size_t>(samples));
    std::iota(strata.begin(), strata.end(), 0);
    for (int i = samples - 1; i > 0; --i) {  // Fisher-Yates
      const auto j = static_cast<int>(s.next() % static_cast<std::uint64_t>(i + 1));
      std::swap(strata[static_cast<std::size_t>(i)], strata[static_cast<std::size_t>(j)]);
    }
    for (int i = 0; i < samples; ++i) {
      const double u = (strata[static_cast<std::size_t>(i)] + s.uniform()) / samples;
      points[static_cast<std::size_t>(i)][static_cast<std::size_t>(p)] = u;
    }
  }
  return points;
}

double triangular_multiplier(double u, double low, double high) {
  if (high <= low) return 1.0;
  const double width = high - low;
  const double f_mode = (1.0 - low) / width;
  if (u < f_mode) return low + std::sqrt(u * width * (1.0 - low));
  return high - std::sqrt((1.0 - u) * width * (high - 1.0));
}

}  // namespace pf::models::uncertainty
