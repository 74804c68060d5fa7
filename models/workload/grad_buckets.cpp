#include "models/workload/grad_buckets.h"

namespace pf::models::workload {

void GradBuckets::add(ParamClass cls, std::int64_t bytes, std::uint32_t producer, bool overlap) {
  State& s = state_[static_cast<std::size_t>(cls)];
  s.accumulated += bytes;
  s.producer = producer;
  if (overlap) {
    s.full_pending += s.accumulated / bucket_;
    s.accumulated %= bucket_;
  }
}

void GradBuckets::flush(ParamClass cls) {
  State& s = state_[static_cast<std::size_t>(cls)];
  s.full_pending += s.accumulated / bucket_;
  s.tail_pending += s.accumulated % bucket_;
  s.accumulated = 0;
}

bool GradBuckets::pop(ParamClass& cls, std::int64_t& bytes, std::uint32_t& producer) {
  for (std::size_t i = 0; i < state_.size(); ++i) {
    State& s = state_[i];
    if (s.full_pending == 0 && s.tail_pending == 0) continue;
    cls = static_cast<ParamClass>(i);
    producer = s.producer;
    if (s.full_pending > 0) {
      --s.full_pending;
      bytes = bucket_;
    } else {
      bytes = s.tail_pending;
      s.tail_pending = 0;
    }
    return true;
  }
  return false;
}

}  // namespace pf::models::workload
