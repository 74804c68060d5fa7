#include "io/timeline/report_attributes.h"

#include <gtest/gtest.h>

#include <map>

namespace pf::timeline {
namespace {

std::map<std::string, SummaryValue> by_name(const std::vector<SummaryAttribute>& attributes) {
  std::map<std::string, SummaryValue> out;
  for (const auto& a : attributes) EXPECT_TRUE(out.emplace(a.name, a.value).second) << "duplicate " << a.name;
  return out;
}

TEST(ReportAttributes, FlattensTheReportWithDottedNames) {
  const nlohmann::json report = nlohmann::json::parse(R"({
    "step_time_ms": 1234.5, "tokens_per_s": 2.5e6, "version": "0.1.0",
    "memory": {"parameters_gb": 20.25, "gradients_gb": 10},
    "pp_stage_memory_gb": [60.5, 58, 57.25],
    "oom": null,
    "simulation": {"ranks": 4, "events": 123456789012, "nested": {"deep": true}},
    "bottlenecks": {"top_ops_by_time": [{"op": "gemm", "ms": 3.5}]}
  })");
  const auto attrs = by_name(summary_attributes(report));
  EXPECT_EQ(std::get<double>(attrs.at("step_time_ms")), 1234.5);
  EXPECT_EQ(std::get<std::string>(attrs.at("version")), "0.1.0");
  EXPECT_EQ(std::get<double>(attrs.at("memory.parameters_gb")), 20.25);
  EXPECT_EQ(std::get<std::int64_t>(attrs.at("memory.gradients_gb")), 10);
  EXPECT_EQ(std::get<std::vector<double>>(attrs.at("pp_stage_memory_gb")), (std::vector<double>{60.5, 58, 57.25}));
  EXPECT_EQ(std::get<std::string>(attrs.at("oom")), "null");
  EXPECT_EQ(std::get<std::int64_t>(attrs.at("simulation.events")), 123456789012);
  EXPECT_EQ(std::get<std::int64_t>(attrs.at("simulation.nested.deep")), 1);
  // A list of objects keeps its JSON text.
  const auto top = nlohmann::json::parse(std::get<std::string>(attrs.at("bottlenecks.top_ops_by_time")));
  EXPECT_EQ(top[0]["op"], "gemm");
  // The whole report, verbatim.
  EXPECT_EQ(nlohmann::json::parse(std::get<std::string>(attrs.at("report_json"))), report);
  EXPECT_EQ(attrs.size(), 12u);
}

TEST(ReportAttributes, ANonObjectReportIsKeptOnlyAsJson) {
  const auto attrs = summary_attributes(nlohmann::json::array({1, 2}));
  ASSERT_EQ(attrs.size(), 1u);
  EXPECT_EQ(attrs[0].name, "report_json");
}

}  // namespace
}  // namespace pf::timeline
