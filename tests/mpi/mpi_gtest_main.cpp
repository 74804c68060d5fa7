// GoogleTest under MPI: every rank runs every test (they are collective); only
// rank 0 prints; the exit status is failure if any rank failed.
//
// A failure on one rank aborts the job: a rank that leaves a test early (a
// fatal assertion, an exception) skips collectives its peers are already
// waiting in, and the job would otherwise hang until ctest's timeout with
// nothing printed. The failing rank prints what failed before the abort.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "core/communicator.h"

namespace {

class AbortOnFailure : public ::testing::EmptyTestEventListener {
 public:
  AbortOnFailure(pf::core::MpiSession& mpi, int rank) : mpi_(mpi), rank_(rank) {}

  // The test's name is kept here: UnitTest::current_test_info() takes the lock
  // GoogleTest holds while it reports a result.
  void OnTestStart(const ::testing::TestInfo& test) override {
    test_ = std::string(test.test_suite_name()) + "." + test.name();
  }

  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    std::fprintf(stderr, "rank %d: %s failed at %s:%d\n%s\nrank %d: aborting every rank (its peers may wait in a "
                 "collective it left)\n",
                 rank_, test_.c_str(), result.file_name() ? result.file_name() : "unknown file", result.line_number(),
                 result.message(), rank_);
    std::fflush(stderr);
    mpi_.abort(1);
  }

 private:
  pf::core::MpiSession& mpi_;
  int rank_;
  std::string test_;
};

}  // namespace

int main(int argc, char** argv) {
  pf::core::MpiSession mpi(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const pf::core::Communicator world = pf::core::Communicator::world();
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (world.rank() != 0) delete listeners.Release(listeners.default_result_printer());
  // One rank alone cannot leave peers waiting: it reports every failure and goes on.
  if (world.size() > 1) listeners.Append(new AbortOnFailure(mpi, world.rank()));
  const int local_failed = RUN_ALL_TESTS();
  const std::int64_t any_failed = world.max(static_cast<std::int64_t>(local_failed != 0));
  return any_failed ? 1 : 0;
}
