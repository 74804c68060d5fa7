// The JSON report: io/report/README.md's keys in order, and the derived figures.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "io/report/report_json.h"
#include "sample_run.h"

namespace pf::report {
namespace {

std::vector<std::string> keys(const nlohmann::ordered_json& object) {
  std::vector<std::string> out;
  for (const auto& [key, value] : object.items()) out.push_back(key);
  return out;
}

nlohmann::ordered_json sample_report() {
  return report_json(test::sample_run(), test::sample_experiment(), "0.1.0", std::string(64, 'a'));
}

// io/report/README.md's report fields, in its order; the extensions follow every one of them.
TEST(ReportJson, HasEverySpecKeyInSpecOrderThenExtensions) {
  const auto j = sample_report();
  const std::vector<std::string> spec = {
      "step_time_ms", "forward_ms", "backward_ms", "optimizer_ms", "collective_total_ms", "collective_exposed_ms",
      "tokens_per_s", "model_tflops_per_gpu", "hardware_tflops_per_gpu", "mfu", "hfu", "peak_memory_gb",
      "pp_stage_memory_gb", "memory", "oom", "bottlenecks", "uncertainty", "simulation", "config_sha256", "version"};
  const std::vector<std::string> extensions = {"name", "gpus", "binding_gpu", "p2p_wait_ms", "bubble_ms", "pp_stage_work_ms",
                                                  "host_bound_ms",
                                                  "overlap_stretch_ms", "slowest_gpu_factor", "lockstep_gpus"};
  std::vector<std::string> expected = spec;
  expected.insert(expected.end(), extensions.begin(), extensions.end());
  EXPECT_EQ(keys(j), expected);

  EXPECT_EQ(keys(j["memory"]),
            (std::vector<std::string>{"parameters_gb", "gradients_gb", "optimizer_gb", "activations_gb", "comm_buffers_gb"}));
  EXPECT_EQ(keys(j["bottlenecks"]), (std::vector<std::string>{"dominant_op_type", "top_ops_by_time",
                                                              "longest_collective", "binding_pp_stage"}));
  EXPECT_EQ(keys(j["bottlenecks"]["top_ops_by_time"][0]), (std::vector<std::string>{"kind", "ms", "count"}));
  EXPECT_EQ(keys(j["bottlenecks"]["longest_collective"]),
            (std::vector<std::string>{"kind", "group", "bytes", "ms", "gpu", "layer", "microbatch"}));
  EXPECT_EQ(keys(j["uncertainty"]),
            (std::vector<std::string>{"step_time_ms_low", "step_time_ms_high", "basis", "calibrated_fraction",
                                      "band_covers", "model_error"}));
  EXPECT_EQ(keys(j["simulation"]),
            (std::vector<std::string>{"ranks", "events", "wall_s", "events_per_s", "lookahead_ns", "windows",
                                      "null_messages", "partition_cut_edges", "imbalance", "peak_rss_gb",
                                      "peak_pending_events", "network", "sync", "fold", "simulated_gpus"}));
}

// Activation offloading adds its two extension keys, and only then: the
// offload wait after host_bound_ms, the host-held activations after the buffers.
TEST(ReportJson, OffloadingAddsItsWaitAndHostActivations) {
  auto run = test::sample_run();
  auto e = test::sample_experiment();
  run.offload_wait_s = 0.0125;
  run.memory.host_activations_gb = 40.5;
  e.training.cpu_offload_layers = 8;
  const auto j = report_json(run, e, "0.1.0", std::string(64, 'a'));
  const std::vector<std::string> k = keys(j);
  const auto at = std::find(k.begin(), k.end(), "host_bound_ms");
  ASSERT_NE(at, k.end());
  EXPECT_EQ(*(at + 1), "offload_wait_ms");
  EXPECT_EQ(*(at + 2), "host_oom");
  EXPECT_TRUE(j["host_oom"].is_null());  // the offloaded activations fit
  EXPECT_DOUBLE_EQ(j["offload_wait_ms"].get<double>(), 12.5);
  run.memory.host_oom = models::memory::PlanSummary::Oom{32, 40.5, 8.5};
  const auto tight = report_json(run, e, "0.1.0", std::string(64, 'a'));
  EXPECT_DOUBLE_EQ(tight["host_oom"]["excess_gb"].get<double>(), 8.5);
  EXPECT_TRUE(tight["oom"].is_null());
  EXPECT_EQ(keys(j["memory"]).back(), "host_activations_gb");
  EXPECT_DOUBLE_EQ(j["memory"]["host_activations_gb"].get<double>(), 40.5);
  const auto plain = sample_report();
  EXPECT_FALSE(plain.contains("offload_wait_ms"));
  EXPECT_FALSE(plain.contains("host_oom"));
  EXPECT_FALSE(plain["memory"].contains("host_activations_gb"));
}

TEST(ReportJson, DerivedFiguresFollowTheirDefinitions) {
  const auto r = test::sample_run();
  const auto j = sample_report();
  EXPECT_DOUBLE_EQ(j["step_time_ms"].get<double>(), 1500.0);
  EXPECT_DOUBLE_EQ(j["forward_ms"].get<double>(), 400.0);
  EXPECT_DOUBLE_EQ(j["backward_ms"].get<double>(), 800.0);
  EXPECT_DOUBLE_EQ(j["optimizer_ms"].get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(j["collective_total_ms"].get<double>(), 300.0);
  EXPECT_DOUBLE_EQ(j["collective_exposed_ms"].get<double>(), 120.0);
  // 1536 sequences x 2048 tokens in 1.5 s.
  EXPECT_DOUBLE_EQ(j["tokens_per_s"].get<double>(), 1536.0 * 2048.0 / 1.5);
  // model_flops / step / gpus / 1e12 = 150 by construction; mfu = 150 / 312.
  EXPECT_NEAR(j["model_tflops_per_gpu"].get<double>(), 150.0, 1e-9);
  EXPECT_NEAR(j["hardware_tflops_per_gpu"].get<double>(), 180.0, 1e-9);
  EXPECT_NEAR(j["mfu"].get<double>(), r.model_flops / r.step_time_s / r.gpus / (r.peak_tflops * 1e12), 1e-12);
  EXPECT_NEAR(j["mfu"].get<double>(), 150.0 / 312.0, 1e-12);
  EXPECT_NEAR(j["hfu"].get<double>(), 180.0 / 312.0, 1e-12);
  EXPECT_DOUBLE_EQ(j["peak_memory_gb"].get<double>(), 66.75);
  EXPECT_EQ(j["pp_stage_memory_gb"].get<std::vector<double>>(), r.memory.pp_stage_memory_gb);
  EXPECT_DOUBLE_EQ(j["memory"]["optimizer_gb"].get<double>(), 21.0);
  EXPECT_DOUBLE_EQ(j["bottlenecks"]["top_ops_by_time"][1]["ms"].get<double>(), 187.5);
  EXPECT_EQ(j["bottlenecks"]["top_ops_by_time"][2]["count"].get<std::uint64_t>(), 768u);
  EXPECT_EQ(j["bottlenecks"]["longest_collective"]["bytes"].get<std::uint64_t>(), 536870912u);
  EXPECT_DOUBLE_EQ(j["bottlenecks"]["longest_collective"]["ms"].get<double>(), 21.5);
  EXPECT_EQ(j["bottlenecks"]["longest_collective"]["microbatch"].get<int>(), -1);
  EXPECT_EQ(j["bottlenecks"]["binding_pp_stage"].get<int>(), 2);
  // The cheap band: the code-default priors to first order over 0.8 s of GEMMs,
  // 0.2 s of attention, 0.1 s of memory-bound kernels and 0.18 s of compute
  // beside collectives (models/uncertainty/linear_band.h, checked there).
  EXPECT_LT(j["uncertainty"]["step_time_ms_low"].get<double>(), 1500.0);
  EXPECT_GT(j["uncertainty"]["step_time_ms_high"].get<double>(), 1500.0);
  EXPECT_EQ(j["uncertainty"]["band_covers"][1], "hardware.gpu.efficiency.gemm");  // after the clock
  EXPECT_DOUBLE_EQ(j["simulation"]["peak_rss_gb"].get<double>(), 3.0);  // 3 x 2^30 bytes
  EXPECT_EQ(j["simulation"]["events"].get<std::uint64_t>(), 12345678u);
  EXPECT_EQ(j["config_sha256"], std::string(64, 'a'));
  EXPECT_EQ(j["version"], "0.1.0");
  EXPECT_EQ(j["name"], "sample-64");
  EXPECT_EQ(j["binding_gpu"].get<int>(), 17);
  EXPECT_DOUBLE_EQ(j["bubble_ms"].get<double>(), 130.0);
  EXPECT_EQ(j["pp_stage_work_ms"], (nlohmann::ordered_json{1210.5, 1220.25, 1300.0, 1250.75}));
}

TEST(ReportJson, OomIsNullWhenThePlanFitsAndAnObjectWhenItDoesNot) {
  auto r = test::sample_run();
  const auto e = test::sample_experiment();
  EXPECT_TRUE(report_json(r, e, "v", "h")["oom"].is_null());
  r.memory.oom = models::memory::PlanSummary::Oom{80.0, 96.5, 16.5};
  const auto oom = report_json(r, e, "v", "h")["oom"];
  ASSERT_TRUE(oom.is_object());
  EXPECT_EQ(keys(oom), (std::vector<std::string>{"capacity_gb", "required_gb", "excess_gb"}));
  EXPECT_DOUBLE_EQ(oom["capacity_gb"].get<double>(), 80.0);
  EXPECT_DOUBLE_EQ(oom["required_gb"].get<double>(), 96.5);
  EXPECT_DOUBLE_EQ(oom["excess_gb"].get<double>(), 16.5);
}

TEST(ReportJson, NoCollectiveGivesNullLongestCollective) {
  auto r = test::sample_run();
  r.longest_collective = {};
  EXPECT_TRUE(report_json(r, test::sample_experiment(), "v", "h")["bottlenecks"]["longest_collective"].is_null());
}

// An empty run (zero step, no GPUs) gives zero rates: JSON has no inf/NaN
// (nlohmann would write them as null, which a reader would not expect).
TEST(ReportJson, ZeroStepGivesZeroRatesNotNull) {
  models::training::RunResult r;
  const auto j = report_json(r, test::sample_experiment(), "v", "h");
  for (const char* key : {"tokens_per_s", "model_tflops_per_gpu", "hardware_tflops_per_gpu", "mfu", "hfu"}) {
    ASSERT_TRUE(j[key].is_number()) << key;
    EXPECT_EQ(j[key].get<double>(), 0.0) << key;
  }
  EXPECT_TRUE(j["bottlenecks"]["top_ops_by_time"].is_array());
}

}  // namespace
}  // namespace pf::report
