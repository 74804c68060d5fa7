// Edit distance and the "did you mean" hints built on it.
#include <gtest/gtest.h>

#include "io/config/did_you_mean.h"

namespace pf::config {
namespace {

TEST(ConfigDidYouMean, EditDistanceCountsEditsAndSwaps) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("tp", "tp"), 0u);
  EXPECT_EQ(edit_distance("tpp", "tp"), 1u);          // deletion
  EXPECT_EQ(edit_distance("tp", "pp"), 1u);           // substitution
  EXPECT_EQ(edit_distance("seuqence", "sequence"), 1u);   // adjacent swap
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("layers", "layers_per_stage"), 10u);
}

TEST(ConfigDidYouMean, SuggestsTheNearestPlausibleKey) {
  const std::vector<std::string> keys{"cp", "dp", "ep", "pp", "tp", "zero_stage"};
  EXPECT_EQ(closest_match("tpp", keys), "tp");
  EXPECT_EQ(closest_match("zero_stag", keys), "zero_stage");
  EXPECT_EQ(closest_match("bandwidth", keys), std::nullopt);
}

TEST(ConfigDidYouMean, AcceptsAPrefixOrSuffixOfALongerKey) {
  EXPECT_EQ(closest_match("nic_bandwidth", {"nic_bandwidth_gbps", "nic_latency_us"}), "nic_bandwidth_gbps");
}

TEST(ConfigDidYouMean, HintListsChoicesWhenNothingIsClose) {
  EXPECT_EQ(suggestion_hint("tpp", {"tp", "pp"}), ", did you mean 'tp'?");
  EXPECT_EQ(suggestion_hint("qqqqqq", {"tp", "pp"}), " (expected one of: tp, pp)");
  EXPECT_EQ(suggestion_hint("x", {}), "");
}

}  // namespace
}  // namespace pf::config
