// SplitMix64's finaliser (Steele, Lea & Flood, "Fast splittable pseudorandom
// number generators", OOPSLA 2014; constants as published by S. Vigna): every
// input bit affects every output bit. Used wherever a choice must be a pure
// function of its inputs (ECMP paths, random links, jitter draws), so that it
// does not depend on how the simulation is split over MPI ranks.
#pragma once

#include <cstdint>

namespace pf::core {

constexpr std::uint64_t mix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace pf::core
