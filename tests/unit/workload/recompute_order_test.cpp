// The order in which a chunk's backward re-runs and differentiates its layers
// under full recomputation (training.recompute_num_layers with
// recompute_method block or uniform), read from the op stream of one GPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/unit/workload/program_fixture.h"

namespace pf::models::workload {
namespace {

using testing::Config;

// The first micro-batch's backward as "R<layer>" (a recomputation unit) and
// "B<layer>" (a layer's backward), one entry per unit.
std::vector<std::string> backward_units(const Config& c) {
  std::vector<std::string> out;
  for (const Op& op : testing::ops_of(testing::make_plan(c), 0)) {
    if (op.stream != Stream::compute || op.microbatch != 0 || op.layer < 0) continue;
    const bool recompute = op.recompute;
    if (op.phase != Phase::bwd && !recompute) continue;
    std::string unit(1, recompute ? 'R' : 'B');
    unit += std::to_string(op.layer);
    if (out.empty() || out.back() != unit) out.push_back(unit);
  }
  return out;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < s.size()) {
    std::size_t end = s.find(' ', at);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

Config four_layers(int n, RecomputeMethod method) {
  Config c;
  c.layers = 4;
  c.recompute = Recompute::full;
  c.recompute_num_layers = n;
  c.recompute_method = method;
  return c;
}

// Each layer re-runs right before its backward (full, or uniform groups of
// one); block re-runs only the first N, after the kept layers' backwards.
TEST(RecomputeOrder, BlockRerunsTheFirstLayersOneByOne) {
  EXPECT_EQ(backward_units(four_layers(0, RecomputeMethod::block)), split("R3 B3 R2 B2 R1 B1 R0 B0"));
  EXPECT_EQ(backward_units(four_layers(1, RecomputeMethod::uniform)), split("R3 B3 R2 B2 R1 B1 R0 B0"));
  EXPECT_EQ(backward_units(four_layers(2, RecomputeMethod::block)), split("B3 B2 R1 B1 R0 B0"));
}

// Uniform groups of N from the chunk's first layer (the last group shorter):
// the backward takes the groups last first, re-running a group's forwards
// in order before its backwards.
TEST(RecomputeOrder, UniformRerunsGroupsOfLayersTogether) {
  EXPECT_EQ(backward_units(four_layers(3, RecomputeMethod::uniform)), split("R3 B3 R0 R1 R2 B2 B1 B0"));
  EXPECT_EQ(backward_units(four_layers(2, RecomputeMethod::uniform)), split("R2 R3 B3 B2 R0 R1 B1 B0"));
  EXPECT_EQ(backward_units(four_layers(4, RecomputeMethod::uniform)), split("R0 R1 R2 R3 B3 B2 B1 B0"));
  EXPECT_EQ(backward_units(four_layers(9, RecomputeMethod::uniform)), split("R0 R1 R2 R3 B3 B2 B1 B0"));
}

// Under ZeRO-3 every re-run forward gathers its layer's parameters, and so
// does every backward except the one right after its own re-run (a group's
// last layer), whose parameters are still gathered.
TEST(RecomputeOrder, UniformGroupsGatherAgainUnderZero3) {
  auto gathers = [](int n, RecomputeMethod method) {
    Config c = four_layers(n, method);
    c.dp = 2, c.zero = 3;
    int count = 0;
    for (const Op& op : testing::ops_of(testing::make_plan(c), 0))
      if (op.kind == OpKind::dp_param_all_gather && op.microbatch == 0 && op.phase == Phase::bwd && op.layer >= 0) ++count;
    return count;
  };
  const int four = gathers(1, RecomputeMethod::uniform);  // one per re-run layer
  ASSERT_GT(four, 0);
  ASSERT_EQ(four % 4, 0);
  EXPECT_EQ(gathers(0, RecomputeMethod::block), four);
  EXPECT_EQ(gathers(4, RecomputeMethod::uniform), four / 4 * 7);  // 4 re-runs + B2, B1, B0
  EXPECT_EQ(gathers(3, RecomputeMethod::uniform), four / 4 * 6);  // 4 re-runs + B1, B0
}

}  // namespace
}  // namespace pf::models::workload
