#include "io/sweep/variant_value.h"

#include <gtest/gtest.h>

namespace pf::sweep {
namespace {

using nlohmann::ordered_json;

TEST(VariantValue, IntegersStayIntegers) {
  EXPECT_EQ(value_json("4"), ordered_json(4));
  EXPECT_TRUE(value_json("4").is_number_integer());
  EXPECT_EQ(value_json("-12"), ordered_json(-12));
  EXPECT_EQ(value_json("+7"), ordered_json(7));
  EXPECT_EQ(value_json("1024"), ordered_json(1024));
}

TEST(VariantValue, IntegersBeyondInt64ReadAsNumbers) {
  const ordered_json v = value_json("123456789012345678901234");
  EXPECT_TRUE(v.is_number_float());
  EXPECT_DOUBLE_EQ(v.get<double>(), 1.23456789012345678901234e23);
}

TEST(VariantValue, FloatsInTheCoreSchemaForms) {
  EXPECT_EQ(value_json("2.5"), ordered_json(2.5));
  EXPECT_EQ(value_json("1e3"), ordered_json(1000.0));
  EXPECT_TRUE(value_json("1e3").is_number_float());
  EXPECT_EQ(value_json(".5"), ordered_json(0.5));
  EXPECT_EQ(value_json("-3."), ordered_json(-3.0));
  EXPECT_EQ(value_json("6.02E+2"), ordered_json(602.0));
}

TEST(VariantValue, BooleansAndNull) {
  EXPECT_EQ(value_json("true"), ordered_json(true));
  EXPECT_EQ(value_json("False"), ordered_json(false));
  EXPECT_TRUE(value_json("~").is_null());
  EXPECT_TRUE(value_json("null").is_null());
}

TEST(VariantValue, QuotedScalarsAreStrings) {
  EXPECT_EQ(value_json("'4'"), ordered_json("4"));
  EXPECT_EQ(value_json("\"true\""), ordered_json("true"));
  EXPECT_EQ(value_json("'it''s'"), ordered_json("it's"));
}

TEST(VariantValue, FlowCollectionsThatAreJson) {
  EXPECT_EQ(value_json("[40, 40]"), ordered_json::parse("[40,40]"));
  EXPECT_EQ(value_json("[a, b]"), ordered_json("[a, b]"));  // YAML, not JSON: kept as text
}

TEST(VariantValue, EverythingElseIsText) {
  for (const char* s : {"selective", "1f1b", "1.2.3", "0x10", ".inf", "../models/llama3-70b.yaml", "yes"})
    EXPECT_EQ(value_json(s), ordered_json(s)) << s;
}

}  // namespace
}  // namespace pf::sweep
