#include "io/timeline/packed_event.h"

#include <cstring>

namespace pf::timeline {

namespace {

template <typename T>
void put(std::byte* out, std::size_t offset, const T& value) {
  std::memcpy(out + offset, &value, sizeof(T));
}

template <typename T>
void get(const std::byte* in, std::size_t offset, T& value) {
  std::memcpy(&value, in + offset, sizeof(T));
}

}  // namespace

void pack_event(const TimelineEvent& e, std::byte* out) {
  put(out, packed::gpu, e.gpu);
  put(out, packed::stream, e.stream);
  put(out, packed::kind, e.kind);
  put(out, packed::start_ns, e.start_ns);
  put(out, packed::end_ns, e.end_ns);
  put(out, packed::layer, e.layer);
  put(out, packed::microbatch, e.microbatch);
  put(out, packed::phase, e.phase);
  put(out, packed::bytes, e.bytes);
  put(out, packed::flops, e.flops);
  put(out, packed::group, e.group);
}

TimelineEvent unpack_event(const std::byte* in) {
  TimelineEvent e;
  get(in, packed::gpu, e.gpu);
  get(in, packed::stream, e.stream);
  get(in, packed::kind, e.kind);
  get(in, packed::start_ns, e.start_ns);
  get(in, packed::end_ns, e.end_ns);
  get(in, packed::layer, e.layer);
  get(in, packed::microbatch, e.microbatch);
  get(in, packed::phase, e.phase);
  get(in, packed::bytes, e.bytes);
  get(in, packed::flops, e.flops);
  get(in, packed::group, e.group);
  return e;
}

std::byte* pack_events_in_place(std::vector<TimelineEvent>& events) {
  static_assert(packed::size <= sizeof(TimelineEvent));
  auto* bytes = reinterpret_cast<std::byte*>(events.data());
  for (std::size_t i = 0; i < events.size(); ++i) {
    const TimelineEvent row = events[i];  // copy first: the packed row may overlap it
    pack_event(row, bytes + i * packed::size);
  }
  return bytes;
}

}  // namespace pf::timeline
