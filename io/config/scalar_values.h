// Typed reads of one configuration value, with range checks. Each throws
// pf::ConfigError naming the node ("FILE:LINE: KEY: expected ..., found ...").
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/config/config_node.h"

namespace pf::config {

// An interval of allowed numbers and how to say it in an error message.
struct NumberRange {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false;   // min itself excluded
  bool max_open = false;

  static NumberRange positive() { return {0.0, std::numeric_limits<double>::infinity(), true, false}; }
  static NumberRange non_negative() { return {0.0, std::numeric_limits<double>::infinity(), false, false}; }
  static NumberRange at_least(double low) { return {low, std::numeric_limits<double>::infinity(), false, false}; }
  static NumberRange fraction() { return {0.0, 1.0, true, false}; }   // (0, 1]
  static NumberRange closed(double low, double high) { return {low, high, false, false}; }

  bool contains(double value) const;
  std::string describe() const;   // "a number > 0", "a number in (0, 1]"
};

std::int64_t as_int(const ConfigNode& node, std::int64_t min, std::int64_t max);
double as_double(const ConfigNode& node, const NumberRange& range);
bool as_bool(const ConfigNode& node);
std::string as_string(const ConfigNode& node);
std::vector<std::int64_t> as_int_list(const ConfigNode& node, std::int64_t min, std::int64_t max);

// Index of the node's value in `names`; errors list the names and suggest the nearest.
std::size_t as_choice(const ConfigNode& node, const std::vector<std::string>& names);

// Enum values by name, for as_enum: {{"gelu", Activation::gelu}, ...}.
template <typename E>
using EnumNames = std::vector<std::pair<std::string, E>>;

template <typename E>
E as_enum(const ConfigNode& node, const EnumNames<E>& names) {
  std::vector<std::string> keys;
  keys.reserve(names.size());
  for (const auto& entry : names) keys.push_back(entry.first);
  return names[as_choice(node, keys)].second;
}

// "an integer >= 1", "an integer in [0, 3]": how integer ranges read in messages.
std::string describe_int_range(std::int64_t min, std::int64_t max);
// A number as error messages write it (700, 0.5, 1e+06).
std::string format_number(double value);

}  // namespace pf::config
