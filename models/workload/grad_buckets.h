// Data-parallel gradient buckets (Megatron DDP, grad_bucket_mb): gradient
// bytes are added as backward ops finish them; with overlap a reduce is issued
// each time a bucket's worth is ready, otherwise all of them at a flush. The
// bucket boundaries are byte counts (a large weight may span buckets), and a
// flush issues the partly filled last bucket. O(1) state per parameter class.
#pragma once

#include <array>
#include <cstdint>

#include "models/workload/op.h"
#include "models/workload/op_template.h"

namespace pf::models::workload {

class GradBuckets {
 public:
  explicit GradBuckets(std::int64_t bucket_bytes) : bucket_(bucket_bytes) {}

  // `producer`: the op that finished these gradients. With `overlap`, full
  // buckets become pending at once; without, they wait for flush().
  void add(ParamClass cls, std::int64_t bytes, std::uint32_t producer, bool overlap);
  // Everything accumulated (full buckets and the remainder) becomes pending.
  void flush(ParamClass cls);
  void flush_all() {
    flush(ParamClass::dense);
    flush(ParamClass::expert);
  }
  // The next pending reduce, if any: its class, size and the op it waits for.
  bool pop(ParamClass& cls, std::int64_t& bytes, std::uint32_t& producer);

 private:
  struct State {
    std::int64_t accumulated = 0;    // bytes not yet in a pending bucket
    std::int64_t full_pending = 0;   // whole buckets to issue
    std::int64_t tail_pending = 0;   // bytes of a last, partial bucket to issue
    std::uint32_t producer = kNoOp;
  };
  std::int64_t bucket_;
  std::array<State, kParamClasses> state_{};
};

}  // namespace pf::models::workload
