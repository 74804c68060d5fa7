#include "io/timeline/packed_event.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>

namespace pf::timeline {
namespace {

TimelineEvent extreme(std::uint32_t i) {
  TimelineEvent e;
  e.gpu = std::numeric_limits<std::uint32_t>::max() - i;
  e.stream = 2;
  e.kind = static_cast<std::uint16_t>(65535 - i);
  e.start_ns = std::numeric_limits<std::int64_t>::max() - i;
  e.end_ns = std::numeric_limits<std::int64_t>::min() + i;
  e.layer = -1 - static_cast<std::int32_t>(i);
  e.microbatch = std::numeric_limits<std::int32_t>::max() - static_cast<std::int32_t>(i);
  e.phase = 1;
  e.bytes = std::numeric_limits<std::uint64_t>::max() - i;
  e.flops = 1.5e300 / (i + 1);
  e.group = 0xdeadbeefu + i;
  return e;
}

void expect_equal(const TimelineEvent& a, const TimelineEvent& b) {
  EXPECT_EQ(a.gpu, b.gpu);
  EXPECT_EQ(a.stream, b.stream);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.start_ns, b.start_ns);
  EXPECT_EQ(a.end_ns, b.end_ns);
  EXPECT_EQ(a.layer, b.layer);
  EXPECT_EQ(a.microbatch, b.microbatch);
  EXPECT_EQ(a.phase, b.phase);
  EXPECT_EQ(a.bytes, b.bytes);
  EXPECT_EQ(a.flops, b.flops);
  EXPECT_EQ(a.group, b.group);
}

TEST(PackedEvent, LayoutIsSpecFieldsInOrderWithoutPadding) {
  // io/timeline/README.md: u32 u8 u16 i64 i64 i32 i32 u8 u64 f64 u32.
  EXPECT_EQ(packed::stream, 4u);
  EXPECT_EQ(packed::kind, 5u);
  EXPECT_EQ(packed::start_ns, 7u);
  EXPECT_EQ(packed::phase, 31u);
  EXPECT_EQ(packed::group, 48u);
  EXPECT_EQ(packed::size, 52u);
}

TEST(PackedEvent, RoundTripsExtremeValues) {
  std::byte buffer[packed::size];
  for (std::uint32_t i = 0; i < 4; ++i) {
    pack_event(extreme(i), buffer);
    expect_equal(unpack_event(buffer), extreme(i));
  }
}

TEST(PackedEvent, LittleEndianFieldBytes) {
  TimelineEvent e;
  e.gpu = 0x01020304u;
  e.start_ns = 0x1122334455667788;
  std::byte buffer[packed::size];
  pack_event(e, buffer);
  EXPECT_EQ(buffer[packed::gpu], std::byte{0x04});  // x86/ARM are little-endian; the HDF5 type says so too
  EXPECT_EQ(buffer[packed::start_ns], std::byte{0x88});
  EXPECT_EQ(buffer[packed::start_ns + 7], std::byte{0x11});
}

TEST(PackedEvent, InPlacePackingMatchesRowByRowPacking) {
  for (const std::size_t n : {0u, 1u, 2u, 5u, 1000u}) {
    std::vector<TimelineEvent> events;
    for (std::size_t i = 0; i < n; ++i) events.push_back(extreme(static_cast<std::uint32_t>(i)));
    std::vector<std::byte> expected(n * packed::size);
    for (std::size_t i = 0; i < n; ++i) pack_event(events[i], expected.data() + i * packed::size);
    const std::byte* packed_rows = pack_events_in_place(events);
    if (n > 0) {
      ASSERT_EQ(std::memcmp(packed_rows, expected.data(), expected.size()), 0) << n;
    }
    for (std::size_t i = 0; i < n; ++i)
      expect_equal(unpack_event(packed_rows + i * packed::size), extreme(static_cast<std::uint32_t>(i)));
  }
}

}  // namespace
}  // namespace pf::timeline
