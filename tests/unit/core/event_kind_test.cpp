// Typed event kinds (core/event_kind.h): a kind is derived from its payload
// type at compile time, distinct types of one model get distinct kinds, and
// no kind falls in the engine's reserved range.
#include <gtest/gtest.h>

#include <cstdint>
#include <set>

#include "core/event_kind.h"
#include "models/training/training_events.h"

namespace pf::core {
namespace {

struct Alpha {};
struct Beta {
  std::uint32_t x = 0;
};
namespace other {
struct Alpha {};  // same name, other namespace: another type, another kind
}  // namespace other

// The checks run at compile time; these lines fail the build, not the test.
static_assert(kind_of<Alpha> != kind_of<Beta>);
static_assert(kind_of<Alpha> != kind_of<other::Alpha>);
static_assert(EventSet<Alpha, Beta, other::Alpha>::valid);
static_assert(EventSet<Alpha>::with<Beta>::contains<Beta>);
static_assert(!EventSet<Alpha>::contains<Beta>);
static_assert(models::training::TrainingEvents::valid);
static_assert(models::training::TrainingEvents::contains<models::network::ChunkArrival>);

TEST(EventKind, KindsOfEveryShippedEventAreDistinctAndOutsideTheReservedRange) {
  namespace t = models::training;
  const EventKind kinds[] = {kind_of<models::network::ChunkArrival>, kind_of<models::network::MessageDelivered>,
                             kind_of<models::collective::PortFree>, kind_of<t::GpuStart>,
                             kind_of<t::ComputeDone>, kind_of<t::CommDone>, kind_of<t::HostIssued>};
  std::set<EventKind> seen;
  for (const EventKind k : kinds) {
    EXPECT_GE(k, detail::kFirstModelKind);
    EXPECT_TRUE(seen.insert(k).second) << "kind " << k << " appears twice";
  }
}

TEST(EventKind, HashFoldsTheWholeSpelling) {
  // Names that differ in one late character hash apart.
  EXPECT_NE(detail::hash_kind("pf::models::training::CommDone"), detail::hash_kind("pf::models::training::CommDonf"));
  EXPECT_EQ(detail::model_kind(0x0005), 0x0105);
  EXPECT_EQ(detail::model_kind(0x1234), 0x1234);
}

}  // namespace
}  // namespace pf::core
