// The up-front check of every variant against the real configuration loader.
#include <gtest/gtest.h>

#include "core/error.h"
#include "io/sweep/sweep_runner.h"

namespace pf::sweep {
namespace {

const std::string kExperiment = std::string(PF_SOURCE_ROOT) + "/tests/mpi/training/small-pipeline.yaml";
// One 8-GPU server, dp derived from tp x pp.
const std::vector<std::string> kSets = {"topology.nodes=1", "parallelism.dp=~", "parallelism.pp=2"};

TEST(Prepare, InvalidVariantsAreKeptWithTheirReason) {
  const auto prepared = prepare_variants(kExperiment, kSets, expand_grid({{"parallelism.tp", {"1", "2", "3", "4"}}}));
  ASSERT_EQ(prepared.size(), 4u);
  EXPECT_EQ(prepared[0].experiment->parallelism.dp, 4);
  EXPECT_EQ(prepared[1].experiment->parallelism.dp, 2);
  EXPECT_EQ(prepared[3].experiment->parallelism.dp, 1);
  EXPECT_EQ(prepared[3].experiment->parallelism.tp, 4);
  EXPECT_FALSE(prepared[2].experiment.has_value());
  EXPECT_NE(prepared[2].error.find("tp"), std::string::npos) << prepared[2].error;
  EXPECT_EQ(prepared[2].error.find('\n'), std::string::npos);
  EXPECT_TRUE(prepared[1].error.empty());
  EXPECT_EQ(prepared[1].config_sha256.size(), 64u);
  EXPECT_NE(prepared[1].config_sha256, prepared[3].config_sha256);
}

TEST(Prepare, VariantOverridesComeAfterTheSets) {
  // --set tp=2 is overridden by the variant's tp.
  std::vector<std::string> sets = kSets;
  sets.push_back("parallelism.tp=2");
  const auto prepared = prepare_variants(kExperiment, sets, expand_grid({{"parallelism.tp", {"4"}}}));
  EXPECT_EQ(prepared[0].experiment->parallelism.tp, 4);
}

TEST(Prepare, AVariantsBadValueIsNamedAsAVaryOption) {
  const auto prepared =
      prepare_variants(kExperiment, kSets, expand_grid({{"hardware.node.nic_bandwidth_gbps", {"fast", "200"}}}));
  EXPECT_FALSE(prepared[0].experiment.has_value());
  EXPECT_EQ(prepared[0].error.rfind("--vary hardware.node.nic_bandwidth_gbps=fast: ", 0), 0u) << prepared[0].error;
  EXPECT_EQ(prepared[1].experiment->hardware.node.nic_bandwidth_gbps, 200);
}

TEST(Prepare, AnUnknownKeyIsFatal) {
  EXPECT_THROW(prepare_variants(kExperiment, kSets, expand_grid({{"parallelism.tpp", {"1", "2"}}})), ConfigError);
  EXPECT_THROW(prepare_variants(kExperiment, kSets, expand_grid({{"parallelism.tp.x", {"1"}}})), ConfigError);
}

}  // namespace
}  // namespace pf::sweep
