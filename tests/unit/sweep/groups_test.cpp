// Which MPI group runs which variant (sweep_runner.h), without MPI.
#include <gtest/gtest.h>

#include "core/error.h"
#include "io/sweep/sweep_runner.h"

namespace pf::sweep {
namespace {

TEST(Groups, RoundRobinCoversEveryJobOnce) {
  EXPECT_EQ(dealt_to(7, 1, 3), (std::vector<std::size_t>{1, 4}));
  EXPECT_EQ(dealt_to(2, 2, 3), (std::vector<std::size_t>{}));
  for (int groups : {1, 2, 3, 5}) {
    std::vector<int> seen(11, 0);
    for (int g = 0; g < groups; ++g)
      for (std::size_t i : dealt_to(11, g, groups)) ++seen[i];
    EXPECT_EQ(seen, std::vector<int>(11, 1)) << groups;
  }
}

TEST(Groups, JobsPerRunMustDivideTheRanks) {
  EXPECT_EQ(group_count(4, 0), 1);
  EXPECT_EQ(group_count(4, 4), 1);
  EXPECT_EQ(group_count(4, 2), 2);
  EXPECT_EQ(group_count(4, 1), 4);
  EXPECT_THROW(group_count(4, 3), ConfigError);
  EXPECT_THROW(group_count(2, 4), ConfigError);
  EXPECT_THROW(group_count(2, -1), ConfigError);
}

}  // namespace
}  // namespace pf::sweep
