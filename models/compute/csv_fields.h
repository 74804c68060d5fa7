// The few CSV primitives the calibration reader needs: split a line on commas
// and parse one field with a one-line error that names the file, line and
// column. Quoting is not supported: calibration tables hold numbers only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace pf::models {

struct CsvPosition {
  const std::string* file = nullptr;
  int line = 0;
};

// Fields with surrounding spaces (and a trailing '\r') stripped.
std::vector<std::string_view> split_csv_line(std::string_view line);

// Positive integer; throws pf::ConfigError "FILE:LINE: column N 'name': expected ..., found '...'".
std::int64_t parse_positive_int(std::string_view field, const CsvPosition& at, int column, std::string_view name);

// Finite number.
double parse_number(std::string_view field, const CsvPosition& at, int column, std::string_view name);

[[noreturn]] void throw_csv_error(const CsvPosition& at, int column, std::string_view name, std::string_view expected,
                                  std::string_view found);

}  // namespace pf::models
