// The figure registry: folding by rule, merging ranks, bytes round trip, and
// the refusals (bad key, a rule or type that changes).
#include "core/statistics.h"

#include <gtest/gtest.h>

#include <vector>

#include "core/error.h"

namespace pf::core {
namespace {

using M = Statistics::Merge;

Statistics::Figure sum(const char* key) { return {key, "label", "bytes", "meaning", M::sum}; }
Statistics::Figure peak(const char* key) { return {key, "", "", "", M::max}; }

std::int64_t integer(const Statistics& s, const char* key) { return std::get<std::int64_t>(s.find(key)->value); }

TEST(Statistics, FoldsRepeatedAddsByTheirRule) {
  Statistics s;
  s.add(sum("network.link_bytes"), std::int64_t{5});
  s.add(sum("network.link_bytes"), std::int64_t{7});
  s.add(peak("network.peak"), std::int64_t{3});
  s.add(peak("network.peak"), std::int64_t{2});
  s.add({"a.low", "", "", "", M::min}, 4.5);
  s.add({"a.low", "", "", "", M::min}, 1.5);
  ASSERT_EQ(s.figures().size(), 3u);
  EXPECT_EQ(integer(s, "network.link_bytes"), 12);
  EXPECT_EQ(integer(s, "network.peak"), 3);
  EXPECT_DOUBLE_EQ(std::get<double>(s.find("a.low")->value), 1.5);
  EXPECT_EQ(s.figures()[0].key, "network.link_bytes");  // first-seen order
  EXPECT_EQ(s.find("missing"), nullptr);
}

// Splitting the same additions over ranks and combining gives one rank's registry.
TEST(Statistics, CombineEqualsOneRankWithEverything) {
  Statistics all;
  std::vector<Statistics> ranks(3);
  for (int i = 0; i < 12; ++i) {
    const std::int64_t v = (i * 37) % 11;
    all.add(sum("x.total"), v);
    all.add(peak("x.largest"), v);
    ranks[static_cast<std::size_t>(i % 3)].add(sum("x.total"), v);
    ranks[static_cast<std::size_t>(i % 3)].add(peak("x.largest"), v);
  }
  ranks[2].add(sum("only.here"), std::int64_t{9});  // a figure one rank lacks merges over the ranks that have it
  const Statistics merged = Statistics::combine(ranks);
  EXPECT_EQ(integer(merged, "x.total"), integer(all, "x.total"));
  EXPECT_EQ(integer(merged, "x.largest"), integer(all, "x.largest"));
  EXPECT_EQ(integer(merged, "only.here"), 9);
}

TEST(Statistics, BytesRoundTrip) {
  Statistics s;
  s.add(sum("simulation.remote_events"), std::int64_t{1} << 40);
  s.add({"b.ratio", "ratio", "", "a double", M::max}, 0.125);
  const Statistics back = Statistics::decode(s.encode());
  ASSERT_EQ(back.figures().size(), 2u);
  EXPECT_EQ(integer(back, "simulation.remote_events"), std::int64_t{1} << 40);
  EXPECT_EQ(back.figures()[0].unit, "bytes");
  EXPECT_EQ(back.figures()[1].merge, M::max);
  EXPECT_DOUBLE_EQ(std::get<double>(back.find("b.ratio")->value), 0.125);
  const std::string bytes = s.encode();
  EXPECT_THROW(Statistics::decode(bytes.substr(0, bytes.size() - 3)), SimulationError);
  EXPECT_TRUE(Statistics::decode("").empty());
}

TEST(Statistics, RefusesBadKeysAndChangedRules) {
  Statistics s;
  for (const char* bad : {"", "Upper.case", "a..b", ".a", "a.", "a-b", "a b"})
    EXPECT_THROW(s.add(sum(bad), std::int64_t{1}), SimulationError) << bad;
  s.add(sum("a.b"), std::int64_t{1});
  EXPECT_THROW(s.add(peak("a.b"), std::int64_t{1}), SimulationError);  // another rule
  EXPECT_THROW(s.add(sum("a.b"), 1.0), SimulationError);                // another type
}

}  // namespace
}  // namespace pf::core
