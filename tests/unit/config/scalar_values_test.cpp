// Typed, range-checked reads: the error text names file, line, key, expected and found.
#include <gtest/gtest.h>

#include "io/config/map_reader.h"
#include "io/config/yaml_reader.h"
#include "temp_dir.h"

namespace pf::config {
namespace {

using testing::config_error;

ConfigNode tree(const std::string& text) { return read_yaml_text(text, "t.yaml", "sec"); }

TEST(ConfigScalarValues, IntegersAreExactAndRangeChecked) {
  const ConfigNode t = tree("a: 8\nb: +3\nc: 0\nd: 8.0\ne: \"8\"\nf: 1e3\ng: 99999999999999999999\n");
  MapReader r(t);
  EXPECT_EQ(r.get_int("a", 1, 100), 8);
  EXPECT_EQ(r.get_int("b", 1, 100), 3);
  EXPECT_EQ(config_error([&] { r.get_int("c", 1, kIntMax); }), "t.yaml:3: sec.c: expected an integer >= 1, found '0'");
  EXPECT_EQ(config_error([&] { r.get_int("d", 1, kIntMax); }), "t.yaml:4: sec.d: expected an integer >= 1, found '8.0'");
  EXPECT_EQ(config_error([&] { r.get_int("e", 1, kIntMax); }),
            "t.yaml:5: sec.e: expected an integer >= 1, found string \"8\"");
  EXPECT_EQ(config_error([&] { r.get_int("a", 0, 3); }), "t.yaml:1: sec.a: expected an integer in [0, 3], found '8'");
  EXPECT_NE(config_error([&] { r.get_int("f", 1, kIntMax); }), "");
  EXPECT_NE(config_error([&] { r.get_int("g", 1, kInt64Max); }), "");
}

TEST(ConfigScalarValues, DoublesHonourOpenAndClosedBounds) {
  const ConfigNode t = tree("bw: 0\nlat: -0.5\nratio: 0.5\neff: 1.2\nok: 2.5e2\nnan: .nan\n");
  MapReader r(t);
  EXPECT_EQ(config_error([&] { r.get_double("bw", NumberRange::positive()); }),
            "t.yaml:1: sec.bw: expected a number > 0, found '0'");
  EXPECT_EQ(config_error([&] { r.get_double("lat", NumberRange::non_negative()); }),
            "t.yaml:2: sec.lat: expected a number >= 0, found '-0.5'");
  EXPECT_EQ(config_error([&] { r.get_double("ratio", NumberRange::at_least(1)); }),
            "t.yaml:3: sec.ratio: expected a number >= 1, found '0.5'");
  EXPECT_EQ(config_error([&] { r.get_double("eff", NumberRange::fraction()); }),
            "t.yaml:4: sec.eff: expected a number in (0, 1], found '1.2'");
  EXPECT_DOUBLE_EQ(r.get_double("ok", NumberRange::positive()), 250.0);
  EXPECT_NE(config_error([&] { r.get_double("nan", NumberRange{}); }), "");
}

TEST(ConfigScalarValues, BooleansStringsAndEnums) {
  const ConfigNode t = tree("on: true\noff: False\nbad: yes\nname: 123\nact: swiglue\nmap: {a: 1}\n");
  MapReader r(t);
  EXPECT_TRUE(r.get_bool("on"));
  EXPECT_FALSE(r.get_bool("off"));
  EXPECT_EQ(config_error([&] { r.get_bool("bad"); }), "t.yaml:3: sec.bad: expected true or false, found 'yes'");
  EXPECT_EQ(r.get_string("name"), "123");
  enum class Act { gelu, swiglu };
  const EnumNames<Act> names{{"gelu", Act::gelu}, {"swiglu", Act::swiglu}};
  EXPECT_EQ(config_error([&] { r.get_enum("act", names); }),
            "t.yaml:5: sec.act: expected one of gelu | swiglu, found 'swiglue' (did you mean 'swiglu'?)");
  EXPECT_EQ(config_error([&] { r.get_string("map"); }), "t.yaml:6: sec.map: expected a string, found a mapping");
}

TEST(ConfigMapReader, DefaultsApplyToAbsentAndNullKeys) {
  const ConfigNode t = tree("given: 4\nempty:\n");
  MapReader r(t);
  EXPECT_EQ(r.get_int_or("given", 1, 1, 10), 4);
  EXPECT_EQ(r.get_int_or("empty", 7, 1, 10), 7);
  EXPECT_EQ(r.get_int_or("absent", 9, 1, 10), 9);
  r.finish();
}

TEST(ConfigMapReader, MissingRequiredKeyNamesTheMapping) {
  const ConfigNode t = tree("a: 1\n");
  MapReader r(t);
  EXPECT_EQ(config_error([&] { r.get_int("layers", 1, kIntMax); }),
            "t.yaml:1: sec: missing required key 'layers' (an integer >= 1)");
}

TEST(ConfigMapReader, UnknownKeysAreErrorsWithAHint) {
  const ConfigNode t = tree("tp: 2\npp: 2\ntpp: 4\n");
  MapReader r(t);
  r.get_int_or("tp", 1, 1, kIntMax);
  r.get_int_or("pp", 1, 1, kIntMax);
  r.get_int_or("dp", 1, 1, kIntMax);
  EXPECT_EQ(config_error([&] { r.finish(); }), "t.yaml:3: sec.tpp: unknown key 'tpp', did you mean 'tp'?");
}

TEST(ConfigMapReader, NonMappingIsRejected) {
  const ConfigNode t = tree("[1, 2]\n");
  EXPECT_EQ(config_error([&] { MapReader r(t); }), "t.yaml:1: sec: expected a mapping, found a sequence");
}

TEST(ConfigMapReader, IntListsCheckEveryItem) {
  const ConfigNode t = tree("l: [4, 4, -1]\n");
  MapReader r(t);
  EXPECT_EQ(config_error([&] { r.get_int_list_or("l", 0, kIntMax); }),
            "t.yaml:1: sec.l[2]: expected an integer >= 0, found '-1'");
}

}  // namespace
}  // namespace pf::config
