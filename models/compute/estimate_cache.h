// A fixed-size, direct-mapped memo of estimates keyed by the whole op.
// A training step repeats a handful of distinct shapes millions of times
// (every layer and micro-batch runs the same GEMMs), so a hit rate near 100%
// turns a k-d tree query into a hash and one comparison. The slots are
// allocated once; a lookup or store never allocates. A colliding op simply
// replaces the slot's previous occupant: the full key is compared, so a
// collision costs a recomputation, never a wrong answer.
#pragma once

#include <cstdint>
#include <vector>

#include "models/compute/compute_op.h"
#include "models/compute/cost_estimate.h"

namespace pf::models {

class EstimateCache {
 public:
  // `slots` is rounded up to a power of two; 0 disables caching.
  explicit EstimateCache(std::size_t slots);

  static std::uint64_t hash(const ComputeOp& op);

  // nullptr on a miss.
  const CostEstimate* find(const ComputeOp& op, std::uint64_t hash) const;
  void store(const ComputeOp& op, std::uint64_t hash, const CostEstimate& estimate);

  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }

 private:
  struct Slot {
    ComputeOp key;
    CostEstimate value;
    bool used = false;
  };
  std::vector<Slot> slots_;
  std::uint64_t mask_ = 0;
  mutable std::uint64_t hits_ = 0;
  mutable std::uint64_t misses_ = 0;
};

}  // namespace pf::models
