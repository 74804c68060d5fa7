#include "io/timeline/chrome_trace.h"

#include <gtest/gtest.h>

#include <sstream>

namespace pf::timeline {
namespace {

TimelineEvent event(std::uint32_t gpu, std::uint8_t stream, std::int64_t start, std::int64_t end) {
  TimelineEvent e;
  e.gpu = gpu;
  e.stream = stream;
  e.start_ns = start;
  e.end_ns = end;
  e.kind = 1;
  e.layer = 3;
  e.microbatch = 2;
  e.phase = 1;
  e.bytes = 1ULL << 40;
  e.flops = 3.25e12;
  e.group = 0;
  return e;
}

nlohmann::json write(const std::vector<TimelineEvent>& events, std::uint32_t gpus_per_node) {
  std::ostringstream out;
  ChromeTraceWriter w(out, gpus_per_node, {"gemm", "all \"reduce\""}, {"tp\\0"}, {{"k", "v"}});
  std::uint32_t last = UINT32_MAX;
  for (const auto& e : events) {
    if (e.gpu != last) w.declare_gpu(e.gpu);
    last = e.gpu;
    w.add(e);
  }
  w.finish();
  EXPECT_EQ(w.events(), events.size());
  return nlohmann::json::parse(out.str());
}

TEST(ChromeTrace, CompleteEventsInMicrosecondsOnePidPerNodeOneTidPerStream) {
  const auto doc = write({event(9, 1, 1234567, 1236000)}, 8);
  EXPECT_EQ(doc["otherData"]["k"], "v");
  const auto& events = doc["traceEvents"];
  std::vector<nlohmann::json> complete;
  for (const auto& e : events)
    if (e["ph"] == "X") complete.push_back(e);
  ASSERT_EQ(complete.size(), 1u);
  const auto& x = complete[0];
  EXPECT_EQ(x["name"], "all \"reduce\"");
  EXPECT_EQ(x["pid"], 1);                 // gpu 9 on node 1 with 8 GPUs per node
  EXPECT_EQ(x["tid"], 9 * kStreamCount + 1);
  EXPECT_DOUBLE_EQ(x["ts"].get<double>(), 1234.567);
  EXPECT_DOUBLE_EQ(x["dur"].get<double>(), 1.433);
  EXPECT_EQ(x["cat"], "comm");
  EXPECT_EQ(x["args"]["layer"], 3);
  EXPECT_EQ(x["args"]["microbatch"], 2);
  EXPECT_EQ(x["args"]["phase"], "bwd");
  EXPECT_EQ(x["args"]["bytes"].get<std::uint64_t>(), 1ULL << 40);
  EXPECT_DOUBLE_EQ(x["args"]["flops"].get<double>(), 3.25e12);
  EXPECT_EQ(x["args"]["group"], "tp\\0");
}

TEST(ChromeTrace, MetadataNamesNodesOnceAndEveryStream) {
  const auto doc = write({event(0, 0, 0, 5), event(1, 2, 0, 5), event(4, 0, 10, 10)}, 2);
  int process_names = 0;
  std::map<int, std::string> threads;
  for (const auto& e : doc["traceEvents"]) {
    if (e["ph"] != "M") continue;
    if (e["name"] == "process_name") ++process_names;
    if (e["name"] == "thread_name") threads[e["tid"].get<int>()] = e["args"]["name"];
  }
  EXPECT_EQ(process_names, 2);  // node 0 (gpus 0, 1) and node 2 (gpu 4)
  EXPECT_EQ(threads.size(), 3u * kStreamCount);  // every stream of the three GPUs
  EXPECT_EQ(threads.at(1 * kStreamCount + 2), "gpu 1 p2p");
  EXPECT_EQ(threads.at(4 * kStreamCount + 0), "gpu 4 compute");
  EXPECT_EQ(threads.at(4 * kStreamCount + 3), "gpu 4 copy");
}

TEST(ChromeTrace, ExactMicrosecondsForSmallAndZeroTimes) {
  const auto doc = write({event(0, 0, 7, 7), event(0, 0, 1000, 2005)}, 8);
  std::vector<std::string> ts;
  for (const auto& e : doc["traceEvents"])
    if (e["ph"] == "X") ts.push_back(e["ts"].dump() + "/" + e["dur"].dump());
  EXPECT_EQ(ts, (std::vector<std::string>{"0.007/0.0", "1.0/1.005"}));
}

// Found by tests/fuzz (regression/fuzz_timeline/invalid-utf8-in-a-name.h5):
// a kind name that is not UTF-8 made nlohmann::json throw out of the export.
TEST(ChromeTrace, NamesThatAreNotUtf8BecomeReplacementCharacters) {
  std::ostringstream out;
  ChromeTraceWriter w(out, 8, {"ge\x89mm"}, {"t\xffp"}, {{"k", "v\xfe"}});
  w.declare_gpu(0);
  TimelineEvent e{};
  e.kind = 0;
  e.group = 0;
  e.end_ns = 1000;
  w.add(e);
  w.finish();
  const auto doc = nlohmann::json::parse(out.str());
  const std::string replaced = "ge\xef\xbf\xbdmm";  // U+FFFD in UTF-8
  bool found = false;
  for (const auto& ev : doc["traceEvents"]) found = found || (ev.contains("name") && ev["name"] == replaced);
  EXPECT_TRUE(found) << out.str();
}

TEST(ChromeTrace, EmptyTraceIsValidJson) {
  const auto doc = write({}, 8);
  EXPECT_TRUE(doc["traceEvents"].is_array());
  EXPECT_TRUE(doc["traceEvents"].empty());
}

}  // namespace
}  // namespace pf::timeline
