// Simulated time: integer picoseconds in a strong type.
//
// Floating-point timestamps make event order depend on rounding, and rounding
// on the order of operations; an int64 count of picoseconds is exact, covers
// +-106 days, and compares in one instruction.
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>

namespace pf::core {

struct SimTime {
  std::int64_t ps = 0;

  static constexpr SimTime zero() { return {0}; }
  static constexpr SimTime infinity() { return {std::numeric_limits<std::int64_t>::max()}; }
  static constexpr SimTime from_ps(std::int64_t v) { return {v}; }
  static constexpr SimTime from_ns(std::int64_t v) { return {v * 1000}; }
  static constexpr SimTime from_us(std::int64_t v) { return {v * 1000000}; }
  // Rounds to the nearest picosecond: the one place doubles become time.
  static SimTime from_seconds(double s) { return {std::llround(s * 1e12)}; }
  static SimTime from_us(double us) { return {std::llround(us * 1e6)}; }

  constexpr double us() const { return static_cast<double>(ps) * 1e-6; }
  constexpr double ns() const { return static_cast<double>(ps) * 1e-3; }
  constexpr double seconds() const { return static_cast<double>(ps) * 1e-12; }
  constexpr bool is_infinite() const { return ps == infinity().ps; }

  constexpr auto operator<=>(const SimTime&) const = default;

  // Saturating add: infinity + anything stays infinity, so "next event time
  // plus lookahead" never wraps around when a rank has nothing left to do.
  friend constexpr SimTime operator+(SimTime a, SimTime b) {
    if (a.is_infinite() || b.is_infinite()) return infinity();
    return {a.ps + b.ps};
  }
  friend constexpr SimTime operator-(SimTime a, SimTime b) { return {a.ps - b.ps}; }
  constexpr SimTime& operator+=(SimTime b) { return *this = *this + b; }
};

}  // namespace pf::core
