#include "io/config/scalar_values.h"

#include <charconv>
#include <cmath>
#include <sstream>

#include "io/config/config_error.h"
#include "io/config/did_you_mean.h"

namespace pf::config {

std::string format_number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

namespace {

// Numbers and booleans must be written plain: `tp: "4"` is a string in YAML,
// and accepting it would hide a quoting mistake.
const ConfigNode& require_plain_scalar(const ConfigNode& node, const std::string& expected) {
  if (!node.is_scalar() || !node.plain()) fail_expected(node, expected);
  return node;
}

}  // namespace

bool NumberRange::contains(double value) const {
  if (std::isnan(value)) return false;
  const bool above = min_open ? value > min : value >= min;
  const bool below = max_open ? value < max : value <= max;
  return above && below;
}

std::string NumberRange::describe() const {
  const bool has_min = std::isfinite(min);
  const bool has_max = std::isfinite(max);
  if (has_min && has_max) {
    return std::string("a number in ") + (min_open ? "(" : "[") + format_number(min) + ", " +
           format_number(max) + (max_open ? ")" : "]");
  }
  if (has_min) return std::string("a number ") + (min_open ? "> " : ">= ") + format_number(min);
  if (has_max) return std::string("a number ") + (max_open ? "< " : "<= ") + format_number(max);
  return "a number";
}

std::string describe_int_range(std::int64_t min, std::int64_t max) {
  // A bound at or beyond INT_MAX is only "fits the type", not worth saying.
  const bool has_max = max < std::numeric_limits<int>::max();
  if (has_max) return "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  return "an integer >= " + std::to_string(min);
}

std::int64_t as_int(const ConfigNode& node, std::int64_t min, std::int64_t max) {
  const std::string expected = describe_int_range(min, max);
  const std::string& text = require_plain_scalar(node, expected).text();
  std::int64_t value = 0;
  const char* begin = text.data() + (text.starts_with('+') ? 1 : 0);
  const auto [end, error] = std::from_chars(begin, text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) fail_expected(node, expected);
  if (value < min || value > max) fail_expected(node, expected);
  return value;
}

double as_double(const ConfigNode& node, const NumberRange& range) {
  const std::string expected = range.describe();
  const std::string& text = require_plain_scalar(node, expected).text();
  double value = 0;
  const char* begin = text.data() + (text.starts_with('+') ? 1 : 0);
  const auto [end, error] = std::from_chars(begin, text.data() + text.size(), value);
  // from_chars also reads "inf" and "nan"; neither is a usable setting.
  if (error != std::errc() || end != text.data() + text.size() || text.empty() || !std::isfinite(value)) {
    fail_expected(node, expected);
  }
  if (!range.contains(value)) fail_expected(node, expected);
  return value;
}

bool as_bool(const ConfigNode& node) {
  const std::string expected = "true or false";
  const std::string& text = require_plain_scalar(node, expected).text();
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  fail_expected(node, expected);
}

std::string as_string(const ConfigNode& node) {
  if (!node.is_scalar()) fail_expected(node, "a string");
  return node.text();
}

std::vector<std::int64_t> as_int_list(const ConfigNode& node, std::int64_t min, std::int64_t max) {
  if (!node.is_sequence()) fail_expected(node, "a sequence of " + describe_int_range(min, max) + " values");
  std::vector<std::int64_t> values;
  values.reserve(node.items().size());
  for (const ConfigNode& item : node.items()) values.push_back(as_int(item, min, max));
  return values;
}

std::size_t as_choice(const ConfigNode& node, const std::vector<std::string>& names) {
  std::string choices;
  for (const std::string& name : names) choices += (choices.empty() ? "" : " | ") + name;
  const std::string expected = "one of " + choices;
  if (!node.is_scalar()) fail_expected(node, expected);
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (node.text() == names[i]) return i;
  }
  std::string hint;
  if (auto match = closest_match(node.text(), names)) hint = " (did you mean '" + *match + "'?)";
  fail_expected(node, expected, node.describe() + hint);
}

}  // namespace pf::config
