#include "models/compute/estimate_cache.h"

#include <bit>
#include <cstring>

namespace pf::models {
namespace {

// splitmix64's finaliser: cheap and mixes every input bit into every output bit.
std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  std::uint64_t z = h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t bits(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

std::uint64_t u(std::int64_t v) { return static_cast<std::uint64_t>(v); }

}  // namespace

EstimateCache::EstimateCache(std::size_t slots) {
  if (slots == 0) return;
  const std::size_t size = std::bit_ceil(slots);
  slots_.resize(size);
  mask_ = size - 1;
}

std::uint64_t EstimateCache::hash(const ComputeOp& op) {
  std::uint64_t h = mix(static_cast<std::uint64_t>(op.cls), static_cast<std::uint64_t>(op.dtype));
  h = mix(h, bits(op.flops));
  h = mix(h, bits(op.bytes));
  h = mix(h, u(op.gemm.m));
  h = mix(h, u(op.gemm.n));
  h = mix(h, u(op.gemm.k));
  h = mix(h, u(op.gemm.batch) ^ (u(op.gemm.accumulate_bytes) << 48));
  const AttentionShape& a = op.attn;
  h = mix(h, u(a.batch) ^ (u(a.seq_q) << 20) ^ (u(a.seq_kv) << 40));
  h = mix(h, u(a.heads) ^ (u(a.kv_heads) << 16) ^ (u(a.head_dim) << 32) ^ (static_cast<std::uint64_t>(a.causal) << 63) ^
                 (static_cast<std::uint64_t>(a.kernel) << 60));
  h = mix(h, u(a.window));
  h = mix(h, u(op.norm.rows) ^ (u(op.norm.dim) << 32) ^ (static_cast<std::uint64_t>(op.norm.kind) << 62));
  return h;
}

const CostEstimate* EstimateCache::find(const ComputeOp& op, std::uint64_t hash) const {
  if (slots_.empty()) return nullptr;
  const Slot& slot = slots_[hash & mask_];
  if (slot.used && slot.key == op) {
    ++hits_;
    return &slot.value;
  }
  ++misses_;
  return nullptr;
}

void EstimateCache::store(const ComputeOp& op, std::uint64_t hash, const CostEstimate& estimate) {
  if (slots_.empty()) return;
  Slot& slot = slots_[hash & mask_];
  slot.key = op;
  slot.value = estimate;
  slot.used = true;
}

}  // namespace pf::models
