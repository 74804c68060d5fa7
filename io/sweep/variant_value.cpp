#include "io/sweep/variant_value.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <regex>
#include <string>

namespace pf::sweep {

namespace {

// YAML 1.2 core schema, tag:yaml.org,2002:int (decimal form) and :float
// (without .inf/.nan, which JSON cannot hold).
bool is_yaml_int(const std::string& s) {
  static const std::regex re("[-+]?[0-9]+");
  return std::regex_match(s, re);
}

bool is_yaml_float(const std::string& s) {
  static const std::regex re(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  return std::regex_match(s, re);
}

bool one_of(const std::string& s, std::initializer_list<const char*> words) {
  for (const char* w : words)
    if (s == w) return true;
  return false;
}

// 'it''s' -> it's; "a\"b" -> a"b (the escapes a command-line value plausibly holds).
std::string unquote(const std::string& s) {
  const char q = s.front();
  std::string out;
  for (std::size_t i = 1; i + 1 < s.size(); ++i) {
    if (q == '\'' && s[i] == '\'' && i + 2 < s.size() && s[i + 1] == '\'') ++i;
    else if (q == '"' && s[i] == '\\' && i + 2 < s.size()) ++i;
    out += s[i];
  }
  return out;
}

}  // namespace

nlohmann::ordered_json value_json(std::string_view yaml_text) {
  const std::string s(yaml_text);
  if (s.empty() || one_of(s, {"null", "Null", "NULL", "~"})) return nullptr;
  if (one_of(s, {"true", "True", "TRUE"})) return true;
  if (one_of(s, {"false", "False", "FALSE"})) return false;
  if (is_yaml_int(s)) {
    std::int64_t v = 0;
    const char* begin = s.data() + (s.front() == '+' ? 1 : 0);
    const auto [end, ec] = std::from_chars(begin, s.data() + s.size(), v);
    if (ec == std::errc() && end == s.data() + s.size()) return v;
    return std::strtod(s.c_str(), nullptr);  // beyond int64: YAML still reads a number
  }
  if (is_yaml_float(s)) {
    const double v = std::strtod(s.c_str(), nullptr);
    if (std::isfinite(v)) return v;
    return s;
  }
  if (s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front()) return unquote(s);
  if (s.front() == '[' || s.front() == '{') {
    nlohmann::ordered_json parsed = nlohmann::ordered_json::parse(s, nullptr, /*allow_exceptions=*/false);
    if (!parsed.is_discarded()) return parsed;
  }
  return s;
}

std::string exact_text(double v) { return nlohmann::ordered_json(v).dump(); }

}  // namespace pf::sweep
