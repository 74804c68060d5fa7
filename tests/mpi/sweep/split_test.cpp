// Communicator::split: groups of consecutive ranks, each a working communicator.
#include <gtest/gtest.h>

#include "core/communicator.h"

namespace pf::core {
namespace {

TEST(Split, PairsOfConsecutiveRanks) {
  const Communicator world = Communicator::world();
  const Communicator pair = world.split(world.rank() / 2, world.rank());
  const int first = world.rank() / 2 * 2;
  const int expected_size = std::min(2, world.size() - first);
  EXPECT_EQ(pair.size(), expected_size);
  EXPECT_EQ(pair.rank(), world.rank() - first);
  // Collectives stay inside the group: the sum of the members' world ranks.
  const std::uint64_t sum = pair.sum(static_cast<std::uint64_t>(world.rank()));
  EXPECT_EQ(sum, static_cast<std::uint64_t>(expected_size == 2 ? 2 * first + 1 : first));
  const std::vector<std::string> names = pair.all_gather(std::to_string(world.rank()));
  ASSERT_EQ(names.size(), static_cast<std::size_t>(expected_size));
  EXPECT_EQ(names.front(), std::to_string(first));
}

TEST(Split, KeyOrdersRanksWithinAGroup) {
  const Communicator world = Communicator::world();
  const Communicator reversed = world.split(0, world.size() - world.rank());
  EXPECT_EQ(reversed.size(), world.size());
  EXPECT_EQ(reversed.rank(), world.size() - 1 - world.rank());
}

TEST(Split, CopiesShareOneCommunicatorFreedWithTheLast) {
  const Communicator world = Communicator::world();
  for (int i = 0; i < 100; ++i) {  // would exhaust MPI's communicator ids if never freed
    Communicator a = world.split(world.rank() % 2, 0);
    const Communicator b = a;
    EXPECT_EQ(b.sum(1), static_cast<std::uint64_t>(a.size()));
  }
}

}  // namespace
}  // namespace pf::core
