#include "io/sweep/sweep_output.h"

#include <gtest/gtest.h>

#include <sstream>

#include "io/sweep/ranking.h"

namespace pf::sweep {
namespace {

using nlohmann::ordered_json;

// tp x bw grid of 4: tp=8 invalid, one OOM, figures that do not print exactly in decimal.
SweepTable sample_table() {
  SweepTable t;
  t.experiment = "configs/examples/x.yaml";
  t.name = "x";
  t.axes = {{"parallelism.tp", {"2", "8"}}, {"hardware.node.nic_bandwidth_gbps", {"100", "400"}}};
  const std::vector<Variant> grid = expand_grid(t.axes);
  nlohmann::ordered_json report = {{"step_time_ms", 0.1 + 0.2}, {"tokens_per_s", 1.0 / 3.0}, {"mfu", 0.4},
                                   {"hfu", 0.5},               {"peak_memory_gb", 70.25},   {"oom", nullptr}};
  std::vector<SweepRow> rows;
  rows.push_back(row_from_report(grid[0], report, 1.5));
  report["step_time_ms"] = 0.2;
  report["oom"] = {{"capacity_gb", 80}};
  rows.push_back(row_from_report(grid[1], report, 2.5));
  rows.push_back(invalid_row(grid[2], "parallelism: expected tp to divide 12 heads, found 8"));
  rows.push_back(invalid_row(grid[3], "same, \"quoted\""));
  apply_change(rows);
  t.baseline = baseline_index(rows);
  t.rows = rank_rows(rows);
  t.ranks = 2;
  t.jobs_per_run = 1;
  return t;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

TEST(Rows, ReadFromTheReport) {
  const SweepTable t = sample_table();
  const SweepRow& fast = t.rows[0];
  EXPECT_EQ(fast.grid_index, 1u);
  EXPECT_TRUE(fast.valid);
  EXPECT_TRUE(fast.oom);
  EXPECT_EQ(fast.step_time_ms, 0.2);
  EXPECT_EQ(t.rows[1].step_time_ms, 0.1 + 0.2);
  EXPECT_FALSE(t.rows[1].oom);
  EXPECT_EQ(t.rows[1].peak_memory_gb, 70.25);
}

TEST(Rows, EncodeDecodeIsExact) {
  const SweepTable t = sample_table();
  const std::vector<SweepRow> back = decode_rows(encode_rows(t.rows));
  ASSERT_EQ(back.size(), t.rows.size());
  for (std::size_t i = 0; i < back.size(); ++i) {
    EXPECT_EQ(back[i].grid_index, t.rows[i].grid_index);
    EXPECT_EQ(back[i].variant, t.rows[i].variant);
    EXPECT_EQ(back[i].valid, t.rows[i].valid);
    EXPECT_EQ(back[i].error, t.rows[i].error);
    EXPECT_EQ(back[i].step_time_ms, t.rows[i].step_time_ms);  // bit-exact, not approximately
    EXPECT_EQ(back[i].tokens_per_s, t.rows[i].tokens_per_s);
    EXPECT_EQ(back[i].oom, t.rows[i].oom);
    EXPECT_EQ(back[i].change_pct, t.rows[i].change_pct);
  }
  EXPECT_TRUE(decode_rows("").empty());
}

TEST(Csv, HeaderOneLinePerRowAndExactNumbers) {
  const std::vector<std::string> csv = lines(format_csv(sample_table()));
  ASSERT_EQ(csv.size(), 5u);
  EXPECT_EQ(csv[0], "rank,grid_index,variant,parallelism.tp,hardware.node.nic_bandwidth_gbps,step_time_ms,"
                    "tokens_per_s,mfu,hfu,peak_memory_gb,oom,change_pct,wall_s,valid,error");
  EXPECT_EQ(csv[1], "1,1,tp=2 nic_bandwidth_gbps=400,2,400,0.2,0.3333333333333333,0.4,0.5,70.25,yes," +
                        ordered_json((0.2 - 0.30000000000000004) / 0.30000000000000004 * 100.0).dump() +
                        ",2.5,yes,");
  EXPECT_EQ(csv[2].substr(0, csv[2].find(",0.30000000000000004,")), "2,0,tp=2 nic_bandwidth_gbps=100,2,100");
  EXPECT_NE(csv[2].find(",no,0.0,1.5,yes,"), std::string::npos) << csv[2];
  EXPECT_EQ(csv[3], ",2,tp=8 nic_bandwidth_gbps=100,8,100,,,,,,,,,no,\"parallelism: expected tp to divide 12 heads, "
                    "found 8\"");
  EXPECT_EQ(csv[4], ",3,tp=8 nic_bandwidth_gbps=400,8,400,,,,,,,,,no,\"same, \"\"quoted\"\"\"");
}

TEST(Json, RowsInTableOrderWithTypedVariantsAndNullsForInvalidRows) {
  const ordered_json j = sweep_json(sample_table());
  EXPECT_EQ(j["experiment"], "configs/examples/x.yaml");
  EXPECT_EQ(j["vary"][1]["key"], "hardware.node.nic_bandwidth_gbps");
  EXPECT_EQ(j["vary"][1]["values"], ordered_json::parse("[100, 400]"));
  EXPECT_EQ(j["baseline_grid_index"], 0);
  const ordered_json& rows = j["rows"];
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0]["rank"], 1);
  EXPECT_EQ(rows[0]["grid_index"], 1);
  EXPECT_EQ(rows[0]["variant"], ordered_json::parse(R"({"parallelism.tp": 2, "hardware.node.nic_bandwidth_gbps": 400})"));
  EXPECT_EQ(rows[0]["step_time_ms"].get<double>(), 0.2);
  EXPECT_EQ(rows[0]["oom"], true);
  EXPECT_TRUE(rows[0]["error"].is_null());
  EXPECT_EQ(rows[1]["change_pct"].get<double>(), 0.0);
  EXPECT_EQ(rows[2]["valid"], false);
  EXPECT_TRUE(rows[2]["rank"].is_null());
  EXPECT_TRUE(rows[2]["step_time_ms"].is_null());
  EXPECT_TRUE(rows[2]["change_pct"].is_null());
  EXPECT_EQ(rows[2]["error"], "parallelism: expected tp to divide 12 heads, found 8");
  for (const char* key : {"rank", "variant", "grid_index", "step_time_ms", "tokens_per_s", "mfu", "hfu",
                          "peak_memory_gb", "oom", "change_pct", "wall_s", "valid", "error"})
    EXPECT_TRUE(rows[3].contains(key)) << key;
}

TEST(Table, RankedRowsThenInvalidOnes) {
  const std::vector<std::string> text = lines(format_table(sample_table()));
  ASSERT_EQ(text.size(), 6u);
  EXPECT_NE(text[1].find("step_time_ms"), std::string::npos);
  EXPECT_EQ(text[2].rfind("   1  tp=2 nic_bandwidth_gbps=400", 0), 0u) << text[2];
  EXPECT_NE(text[2].find(" yes "), std::string::npos);   // OOM column
  EXPECT_NE(text[2].find("-33.33%"), std::string::npos);  // 0.2 vs 0.3 ms
  EXPECT_NE(text[3].find("baseline"), std::string::npos);
  EXPECT_EQ(text[4].rfind("   -  tp=8 nic_bandwidth_gbps=100  invalid: parallelism:", 0), 0u) << text[4];
}

TEST(Progress, OneLinePerVariant) {
  const SweepTable t = sample_table();
  const std::string line = progress_line(t.rows[0], 4, short_keys(t.axes));
  EXPECT_EQ(line.rfind("sweep: [2/4] tp=2 nic_bandwidth_gbps=400: 0.200 ms", 0), 0u) << line;
  EXPECT_NE(line.find("does not fit"), std::string::npos);
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace pf::sweep
