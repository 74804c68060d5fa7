// GoogleTest under MPI: every rank runs every test (they are collective); only
// rank 0 prints; the exit status is failure if any rank failed.
#include <gtest/gtest.h>

#include "core/communicator.h"

int main(int argc, char** argv) {
  pf::core::MpiSession mpi(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const pf::core::Communicator world = pf::core::Communicator::world();
  if (world.rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int local_failed = RUN_ALL_TESTS();
  const std::int64_t any_failed = world.max(static_cast<std::int64_t>(local_failed != 0));
  return any_failed ? 1 : 0;
}
