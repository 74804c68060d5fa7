// A figure recorded once in the registry reaches the JSON at its key's path,
// the text report as a labelled row and the HDF5 /summary attributes, and
// may not overwrite a key the report already has.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "core/error.h"
#include "io/report/report_json.h"
#include "io/report/report_text.h"
#include "io/timeline/report_attributes.h"
#include "sample_run.h"

namespace pf::report {
namespace {

using M = core::Statistics::Merge;

models::training::RunResult run_with(const core::Statistics::Figure& figure, core::Statistics::Value value) {
  models::training::RunResult r = test::sample_run();
  core::Statistics::Figure f = figure;
  f.value = value;
  r.figures.add(f);
  return r;
}

TEST(ReportFigures, OneFigureReachesJsonTextAndSummary) {
  models::training::RunResult r = test::sample_run();
  r.figures.add({"simulation.remote_events", "remote events", "events", "events to another rank", M::sum},
                std::int64_t{4242});
  r.figures.add({"network.link_bytes", "bytes on links", "bytes", "every hop counted", M::sum}, std::int64_t{1} << 41);
  r.figures.add({"training.ratio", "", "", "JSON only: no label", M::max}, 0.375);
  const auto j = report_json(r, test::sample_experiment(), "v", "h");

  // JSON: inside the existing simulation block, after its keys; new objects for the rest.
  EXPECT_EQ(j.at("simulation").at("remote_events").get<std::int64_t>(), 4242);
  EXPECT_EQ(std::prev(j.at("simulation").end()).key(), "remote_events");
  EXPECT_EQ(j.at("simulation").at("ranks").get<int>(), 2);  // the contract keys stay
  EXPECT_EQ(j.at("network").at("link_bytes").get<std::int64_t>(), std::int64_t{1} << 41);
  EXPECT_DOUBLE_EQ(j.at("training").at("ratio").get<double>(), 0.375);

  // Text: labelled figures as rows of a closing "figures" block, valued from the JSON.
  const std::string text = report_text(j, r.figures);
  const auto at = text.find("figures\n");
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_NE(text.find("  remote events        4242 events\n", at), std::string::npos) << text;
  EXPECT_NE(text.find("  bytes on links       2199023255552 bytes\n", at), std::string::npos) << text;
  EXPECT_EQ(text.find("0.375"), std::string::npos) << "an unlabelled figure is JSON only";
  EXPECT_EQ(report_text(j).find("figures\n"), std::string::npos);  // no registry: no block

  // /summary: the flattened JSON.
  bool found = false;
  for (const auto& a : timeline::summary_attributes(nlohmann::json(j)))
    if (a.name == "network.link_bytes") {
      found = true;
      EXPECT_EQ(std::get<std::int64_t>(a.value), std::int64_t{1} << 41);
    }
  EXPECT_TRUE(found);
}

TEST(ReportFigures, MayNotOverwriteTheReportsOwnKeys) {
  const auto e = test::sample_experiment();
  EXPECT_THROW(report_json(run_with({"step_time_ms", "", "", "", M::sum}, std::int64_t{1}), e, "v", "h"), SimulationError);
  EXPECT_THROW(report_json(run_with({"simulation.windows", "", "", "", M::sum}, std::int64_t{1}), e, "v", "h"),
               SimulationError);
  EXPECT_THROW(report_json(run_with({"step_time_ms.part", "", "", "", M::sum}, std::int64_t{1}), e, "v", "h"),
               SimulationError);
}

}  // namespace
}  // namespace pf::report
