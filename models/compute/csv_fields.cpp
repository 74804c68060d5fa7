#include "models/compute/csv_fields.h"

#include <charconv>
#include <cmath>

#include "core/error.h"

namespace pf::models {
namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

}  // namespace

std::vector<std::string_view> split_csv_line(std::string_view line) {
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  while (true) {
    const auto comma = line.find(',', start);
    fields.push_back(trim(line.substr(start, comma == std::string_view::npos ? line.npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return fields;
}

void throw_csv_error(const CsvPosition& at, int column, std::string_view name, std::string_view expected,
                     std::string_view found) {
  throw ConfigError(*at.file + ":" + std::to_string(at.line) + ": column " + std::to_string(column) + " '" +
                    std::string(name) + "': expected " + std::string(expected) + ", found '" + std::string(found) +
                    "'");
}

std::int64_t parse_positive_int(std::string_view field, const CsvPosition& at, int column, std::string_view name) {
  std::int64_t value = 0;
  const auto* end = field.data() + field.size();
  const auto [ptr, ec] = std::from_chars(field.data(), end, value);
  if (ec != std::errc() || ptr != end || value <= 0) {
    throw_csv_error(at, column, name, "a positive integer", field);
  }
  return value;
}

double parse_number(std::string_view field, const CsvPosition& at, int column, std::string_view name) {
  double value = 0;
  const auto* end = field.data() + field.size();
  const auto [ptr, ec] = std::from_chars(field.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) {
    throw_csv_error(at, column, name, "a number", field);
  }
  return value;
}

}  // namespace pf::models
