#include "io/sweep/vary_axis.h"

#include <gtest/gtest.h>

#include "core/error.h"

namespace pf::sweep {
namespace {

using Values = std::vector<std::string>;

TEST(VaryAxis, SplitsValuesAtCommasAndTrimsThem) {
  const VaryAxis a = parse_vary("parallelism.tp= 2, 4 ,8");
  EXPECT_EQ(a.key, "parallelism.tp");
  EXPECT_EQ(a.values, (Values{"2", "4", "8"}));
  EXPECT_EQ(parse_vary("hardware.node.nic_bandwidth_gbps=400").values, (Values{"400"}));
}

TEST(VaryAxis, CommasInsideBracketsBracesAndQuotesDoNotSplit) {
  EXPECT_EQ(parse_vary("parallelism.layers_per_stage=[40,40],[30, 50]").values, (Values{"[40,40]", "[30, 50]"}));
  EXPECT_EQ(parse_vary("name='a,b',\"c,d\",e").values, (Values{"'a,b'", "\"c,d\"", "e"}));
  EXPECT_EQ(parse_vary("x.y={a: 1, b: [2, 3]},4").values, (Values{"{a: 1, b: [2, 3]}", "4"}));
}

TEST(VaryAxis, MalformedTextIsAConfigError) {
  for (const char* bad : {"parallelism.tp", "parallelism.tp=", "parallelism.tp=1,,2", "parallelism.tp=1,",
                          "=1,2", "parallelism..tp=1", ".tp=1", "parallelism.tp.=1", "para llelism=1",
                          "x=[1,2", "x=1],2", "x='open,2"}) {
    EXPECT_THROW(parse_vary(bad), ConfigError) << bad;
  }
}

TEST(VaryAxis, ErrorNamesTheOption) {
  try {
    parse_vary("parallelism.tp=1,,2");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--vary parallelism.tp=1,,2: ", 0), 0u) << e.what();
  }
}

TEST(Grid, FirstAxisVariesSlowest) {
  const std::vector<Variant> grid = expand_grid({{"a", {"1", "2"}}, {"b", {"x", "y", "z"}}});
  ASSERT_EQ(grid.size(), 6u);
  const char* expected[6][2] = {{"1", "x"}, {"1", "y"}, {"1", "z"}, {"2", "x"}, {"2", "y"}, {"2", "z"}};
  for (std::size_t i = 0; i < grid.size(); ++i) {
    EXPECT_EQ(grid[i].grid_index, i);
    ASSERT_EQ(grid[i].assignments.size(), 2u);
    EXPECT_EQ(grid[i].assignments[0], (Assignment{"a", expected[i][0]}));
    EXPECT_EQ(grid[i].assignments[1], (Assignment{"b", expected[i][1]}));
  }
  EXPECT_EQ(grid[4].overrides(), (Values{"a=2", "b=y"}));
}

TEST(Grid, SizeIsTheProductOfTheLists) {
  EXPECT_EQ(expand_grid({{"a", {"1", "2"}}, {"b", {"1", "2", "3"}}, {"c", {"1", "2", "3", "4", "5"}}}).size(), 30u);
  EXPECT_EQ(expand_grid({{"a", {"7"}}}).size(), 1u);
  EXPECT_TRUE(expand_grid({}).empty());
}

TEST(Grid, AKeyVariedTwiceIsAConfigError) {
  EXPECT_THROW(expand_grid({{"parallelism.tp", {"1"}}, {"parallelism.tp", {"2"}}}), ConfigError);
}

TEST(Grid, TooManyVariantsIsAConfigError) {
  Values fifty;
  for (int i = 0; i < 50; ++i) fifty.push_back(std::to_string(i));
  EXPECT_NO_THROW(check_axes({{"a", fifty}, {"b", fifty}}));                 // 2,500
  EXPECT_THROW(check_axes({{"a", fifty}, {"b", fifty}, {"c", fifty}}), ConfigError);  // 125,000
}

TEST(Labels, ShortKeysAreTheShortestUniqueSuffixes) {
  EXPECT_EQ(short_keys({{"hardware.node.nic_bandwidth_gbps", {}}, {"parallelism.tp", {}}}),
            (Values{"nic_bandwidth_gbps", "tp"}));
  EXPECT_EQ(short_keys({{"a.x.tp", {}}, {"b.x.tp", {}}, {"c.pp", {}}}), (Values{"a.x.tp", "b.x.tp", "pp"}));
  EXPECT_EQ(short_keys({{"tp", {}}, {"parallelism.tp", {}}}), (Values{"tp", "parallelism.tp"}));
}

TEST(Labels, VariantLabelJoinsShortKeyValuePairs) {
  const std::vector<VaryAxis> axes = {{"parallelism.tp", {"2"}}, {"hardware.node.nic_bandwidth_gbps", {"100"}}};
  EXPECT_EQ(variant_label(expand_grid(axes).front(), short_keys(axes)), "tp=2 nic_bandwidth_gbps=100");
}

}  // namespace
}  // namespace pf::sweep
