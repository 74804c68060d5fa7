// The faults: section: every target and effect parsed, the replacement
// hardware read relative to the experiment, sweepable through --set
// faults.N.key, and each mistake a one-line error naming file, line and key.
#include <gtest/gtest.h>

#include "experiment_fixture.h"
#include "io/config/experiment_loader.h"

namespace pf::config {
namespace {

using namespace testing;

// The fixture's experiment (2 servers of 8 GPUs) with a faults section appended.
std::string with_faults(const TempDir& dir, const std::string& faults) {
  return write_experiment(dir, std::string(kExperimentYaml) + "faults:\n" + faults);
}

TEST(ConfigFaults, EveryTargetAndEffect) {
  TempDir dir;
  dir.write("parts/older.yaml", replace_text(kHardwareYaml, "name: G", "name: Older"));
  const std::string exp = with_faults(dir, R"(  - {gpus: "3", compute_slowdown: 1.25}
  - {gpus: "8-15", hardware: ../parts/older.yaml}
  - {gpus: "0-1,4", compute_jitter: {distribution: normal, sigma: 0.05, seed: 3}}
  - {link: "leaf0->spine1", bandwidth_factor: 0.5}
  - {link: "nic2<->leaf0", failed: true}
  - {switch: spine2, failed: true}
  - {random_links: {fraction: 0.01, bandwidth_factor: 0.5, seed: 7}}
)");
  const models::ExperimentSpec e = load_experiment(exp);
  ASSERT_EQ(e.faults.size(), 7u);
  EXPECT_EQ(e.faults[0].target, models::FaultTarget::gpus);
  EXPECT_EQ(e.faults[0].gpus, std::vector<int>{3});
  EXPECT_DOUBLE_EQ(e.faults[0].compute_slowdown, 1.25);
  ASSERT_TRUE(e.faults[1].hardware.has_value());
  EXPECT_EQ(e.faults[1].hardware_name, "Older");
  EXPECT_EQ(e.faults[1].gpus.size(), 8u);
  EXPECT_EQ(e.faults[2].gpus, (std::vector<int>{0, 1, 4}));
  EXPECT_EQ(e.faults[2].jitter.distribution, models::JitterDistribution::normal);
  EXPECT_DOUBLE_EQ(e.faults[2].jitter.sigma, 0.05);
  EXPECT_EQ(e.faults[2].jitter.seed, 3u);
  EXPECT_EQ(e.faults[3].target, models::FaultTarget::link);
  EXPECT_EQ(e.faults[3].src, "leaf0");
  EXPECT_EQ(e.faults[3].dst, "spine1");
  EXPECT_FALSE(e.faults[3].both_directions);
  EXPECT_TRUE(e.faults[4].both_directions);
  EXPECT_TRUE(e.faults[4].failed);
  EXPECT_EQ(e.faults[5].target, models::FaultTarget::switch_vertex);
  EXPECT_EQ(e.faults[5].src, "spine2");
  EXPECT_EQ(e.faults[6].target, models::FaultTarget::random_links);
  EXPECT_DOUBLE_EQ(e.faults[6].fraction, 0.01);
  EXPECT_EQ(e.faults[6].seed, 7u);
  // Errors found later (a vertex the fabric lacks) name where the fault was written.
  EXPECT_EQ(e.faults[3].origin, exp + ":" + std::to_string(line_of(kExperimentYaml, "seq_length") + 5) + ": faults[3]");
  // The merged tree carries the replacement hardware itself, so its hash changes with the file.
  EXPECT_NE(e.merged_yaml.find("Older"), std::string::npos);
}

TEST(ConfigFaults, AllGpusAndASweepableKey) {
  TempDir dir;
  const std::string exp = with_faults(dir, "  - {gpus: all, compute_slowdown: 1.0}\n");
  EXPECT_EQ(load_experiment(exp).faults[0].gpus.size(), 16u);   // 1.0 written out is the healthy end of a sweep
  const models::ExperimentSpec e = load_experiment(exp, {"faults.0.compute_slowdown=1.5", "faults.0.gpus=\"5\""});
  EXPECT_DOUBLE_EQ(e.faults[0].compute_slowdown, 1.5);
  EXPECT_EQ(e.faults[0].gpus, std::vector<int>{5});
  EXPECT_EQ(config_error([&] { load_experiment(exp, {"faults.1.compute_slowdown=2"}); }),
            exp + ":" + std::to_string(line_of(kExperimentYaml, "seq_length") + 1) +
                ": faults: cannot apply --set faults.1.compute_slowdown=2: expected an item number 0..0 of this sequence, found '1'");
}

TEST(ConfigFaults, MistakesAreOneLineErrors) {
  TempDir dir;
  const auto error_of = [&](const std::string& faults) {
    return config_error([&] { load_experiment(with_faults(dir, faults)); });
  };
  const std::string at = dir.path("experiments/exp.yaml") + ":" + std::to_string(line_of(kExperimentYaml, "seq_length") + 2);
  EXPECT_EQ(error_of("  - {gpus: \"16\", compute_slowdown: 2}\n"),
            at + ": faults[0].gpus: expected a GPU list: \"17\", \"512-519\", \"0-3,8\" or all (GPUs 0..15), found GPU 16");
  EXPECT_EQ(error_of("  - {gpus: \"4-2\", compute_slowdown: 2}\n"),
            at + ": faults[0].gpus: expected a GPU list: \"17\", \"512-519\", \"0-3,8\" or all (GPUs 0..15), found '4-2'");
  EXPECT_EQ(error_of("  - {gpus: \"1\"}\n"),
            at + ": faults[0]: expected compute_slowdown, hardware or compute_jitter, found none: the fault changes nothing");
  EXPECT_EQ(error_of("  - {gpus: \"1\", link: \"leaf0->spine0\", compute_slowdown: 2}\n"),
            at + ": faults[0]: expected exactly one of gpus, link, switch or random_links, found 2");
  EXPECT_EQ(error_of("  - {link: \"leaf0 spine0\", failed: true}\n"),
            at + ": faults[0].link: expected \"a->b\" (one direction) or \"a<->b\" (both), found string \"leaf0 spine0\"");
  EXPECT_EQ(error_of("  - {link: \"leaf0->rack2\", failed: true}\n"),
            at + ": faults[0].link: expected a vertex name as /links prints it (gpu17, nic3, nvswitch0, leaf3, spine1, core0), found 'rack2'");
  EXPECT_EQ(error_of("  - {switch: gpu3, failed: true}\n"),
            at + ": faults[0].switch: expected a switch (leaf, spine, core or nvswitch), found 'gpu3'");
  EXPECT_EQ(error_of("  - {switch: spine0}\n"),
            at + ": faults[0]: expected bandwidth_factor or failed, found neither: the fault changes nothing");
  EXPECT_EQ(error_of("  - {gpus: \"1\", compute_slowdown: 0}\n"),
            at + ": faults[0].compute_slowdown: expected a number in (0, 1000], found '0'");
  EXPECT_EQ(error_of("  - {gpus: \"1\", compute_jitter: {sigma: 0.1, shape: 2}}\n").substr(0, at.size()), at);
  EXPECT_EQ(error_of("  - {gpus: \"1\", hardware: ../parts/missing.yaml}\n"),
            at + ": faults[0].hardware: expected an inline hardware mapping or the path of a hardware YAML file, found "
                 "'../parts/missing.yaml' (no such file: " + dir.path("parts/missing.yaml") + ")");
  dir.write("parts/four.yaml", replace_text(kHardwareYaml, "gpus_per_node: 8", "gpus_per_node: 4"));
  EXPECT_NE(error_of("  - {gpus: \"1\", hardware: ../parts/four.yaml}\n")
                .find("expected a server of the cluster's shape (8 GPUs, 8 NICs), found 4 GPUs, 8 NICs"),
            std::string::npos);
  EXPECT_EQ(error_of("  {gpus: \"1\"}\n"),
            dir.path("experiments/exp.yaml") + ":" + std::to_string(line_of(kExperimentYaml, "seq_length") + 1) +
                ": faults: expected a sequence of faults (- {gpus: \"17\", compute_slowdown: 1.25}), found a mapping");
}

}  // namespace
}  // namespace pf::config
