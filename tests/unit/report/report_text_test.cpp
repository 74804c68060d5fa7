// The printed report: rendered from the JSON, so it shows the JSON's numbers.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "io/report/report_json.h"
#include "io/report/report_text.h"
#include "sample_run.h"

namespace pf::report {
namespace {

nlohmann::ordered_json sample_report() {
  return report_json(test::sample_run(), test::sample_experiment(), "0.1.0", "cafe0123");
}

std::string fmt(const char* format, double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, v);
  return buffer;
}

// Every headline figure of the JSON appears in the text, in the documented format.
TEST(ReportText, ShowsTheJsonNumbers) {
  const auto j = sample_report();
  const std::string text = report_text(j);
  auto has = [&](const std::string& needle) { EXPECT_NE(text.find(needle), std::string::npos) << needle << "\n" << text; };
  has(fmt("%.3f ms", j["step_time_ms"].get<double>()));                  // 1500.000 ms
  has(fmt("%.3f ms", j["forward_ms"].get<double>()));
  has(fmt("%.3f ms", j["backward_ms"].get<double>()));
  has(fmt("%.3f ms", j["optimizer_ms"].get<double>()));
  has(fmt("%.3f ms", j["collective_total_ms"].get<double>()));
  has(fmt("%.3f ms", j["collective_exposed_ms"].get<double>()));
  has(fmt("%.3f ms", j["bubble_ms"].get<double>()));
  has("1210.5 1220.2 1300.0 1250.8 ms");  // each stage's work, the binding stage's the largest
  has(fmt("%.0f", j["tokens_per_s"].get<double>()));                     // 2097152
  has(fmt("%.1f %%", 100 * j["mfu"].get<double>()));                     // 48.1 %
  has(fmt("HFU %.1f %%", 100 * j["hfu"].get<double>()));
  has(fmt("%.1f model", j["model_tflops_per_gpu"].get<double>()));
  has(fmt("%.1f hardware", j["hardware_tflops_per_gpu"].get<double>()));
  // Phase shares of the step: 400 / 1500 = 26.7 %.
  has(fmt("%5.1f %%", 100 * j["forward_ms"].get<double>() / j["step_time_ms"].get<double>()));
  for (const auto& gb : j["pp_stage_memory_gb"]) has(fmt("%.2f", gb.get<double>()));
  has(fmt("%.2f = parameters", j["peak_memory_gb"].get<double>()));
  has(fmt("activations %.2f", j["memory"]["activations_gb"].get<double>()));
  has("fits");
  has("gemm");
  for (const auto& op : j["bottlenecks"]["top_ops_by_time"]) {
    has(op["kind"].get<std::string>());
    has(fmt("%.3f ms", op["ms"].get<double>()));
    has(fmt("x%.0f", op["count"].get<double>()));
  }
  has("dp_grad_reduce_scatter on dp[3]");
  has("(gpu 5, layer 3, microbatch -)");  // -1: not tied to a micro-batch
  has(fmt("%.3f ms", j["bottlenecks"]["longest_collective"]["ms"].get<double>()));
  std::string band = fmt("%.3f .. ", j["uncertainty"]["step_time_ms_low"].get<double>());
  band.append(fmt("%.3f ms", j["uncertainty"]["step_time_ms_high"].get<double>()));
  has(band);
  has("basis mixed");
  has(std::to_string(j["simulation"]["events"].get<std::uint64_t>()));
  has(fmt("%.1f ns", j["simulation"]["lookahead_ns"].get<double>()));
  has(fmt("imbalance %.3f", j["simulation"]["imbalance"].get<double>()));
  has("cafe0123");
  has("0.1.0");
  has("sample-64 on 64 GPUs");
}

TEST(ReportText, OomVerdictShowsRequiredCapacityAndExcess) {
  auto r = test::sample_run();
  r.memory.oom = models::memory::PlanSummary::Oom{80.0, 96.5, 16.5};
  const std::string text = report_text(report_json(r, test::sample_experiment(), "v", "h"));
  EXPECT_NE(text.find("OUT OF MEMORY: needs 96.50 of 80.00 GiB (16.50 over)"), std::string::npos) << text;
  EXPECT_EQ(text.find("fits"), std::string::npos) << text;
}

// The text follows the JSON it is given, not the RunResult behind it.
TEST(ReportText, IsRenderedFromTheJson) {
  auto j = sample_report();
  j["step_time_ms"] = 1234.5;
  j["bottlenecks"]["longest_collective"] = nullptr;
  const std::string text = report_text(j);
  EXPECT_NE(text.find("1234.500 ms"), std::string::npos) << text;
  EXPECT_EQ(text.find("1500.000 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("longest collective   none"), std::string::npos) << text;
}

TEST(ReportText, MissingSpecKeyIsAnError) {
  auto j = sample_report();
  j.erase("uncertainty");
  EXPECT_THROW(report_text(j), nlohmann::json::exception);
}

}  // namespace
}  // namespace pf::report
