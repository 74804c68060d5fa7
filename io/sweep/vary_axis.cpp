#include "io/sweep/vary_axis.h"

#include <cctype>
#include <set>

#include "core/error.h"

namespace pf::sweep {

namespace {

std::string trim(std::string_view text) {
  std::size_t begin = 0;
  std::size_t end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return std::string(text.substr(begin, end - begin));
}

// The same key grammar as --set (io/config/overrides.cpp): dotted components
// of letters, digits, '_' and '-'.
bool valid_key(std::string_view key) {
  if (key.empty() || key.front() == '.' || key.back() == '.') return false;
  char previous = '.';
  for (const char c : key) {
    const bool word = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
    if (!word && c != '.') return false;
    if (c == '.' && previous == '.') return false;
    previous = c;
  }
  return true;
}

std::vector<std::string> split_path(const std::string& key) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) return parts;
    start = dot + 1;
  }
}

// The last `n` components of a dotted key.
std::string suffix(const std::vector<std::string>& parts, std::size_t n) {
  std::string out;
  for (std::size_t i = parts.size() - n; i < parts.size(); ++i) out += (out.empty() ? "" : ".") + parts[i];
  return out;
}

}  // namespace

std::vector<std::string> Variant::overrides() const {
  std::vector<std::string> out;
  for (const Assignment& a : assignments) out.push_back(a.key + "=" + a.value);
  return out;
}

std::vector<std::string> split_values(std::string_view list, const std::string& label) {
  std::vector<std::string> values;
  int depth = 0;
  char quote = 0;
  std::size_t start = 0;
  auto take = [&](std::size_t end) {
    std::string value = trim(list.substr(start, end - start));
    if (value.empty()) throw ConfigError(label + ": expected a value between commas, found an empty one");
    values.push_back(std::move(value));
    start = end + 1;
  };
  for (std::size_t i = 0; i < list.size(); ++i) {
    const char c = list[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      if (--depth < 0) throw ConfigError(label + ": expected balanced brackets, found an extra '" + c + "'");
    } else if (c == ',' && depth == 0) {
      take(i);
    }
  }
  if (quote || depth != 0) throw ConfigError(label + ": expected balanced brackets and quotes, found an open one");
  take(list.size());
  return values;
}

VaryAxis parse_vary(std::string_view text) {
  const std::string label = "--vary " + std::string(text);
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos) throw ConfigError(label + ": expected KEY=V1,V2,..., found no '='");
  VaryAxis axis;
  axis.key = trim(text.substr(0, eq));
  if (!valid_key(axis.key))
    throw ConfigError(label + ": expected a dotted key path like parallelism.tp, found '" + axis.key + "'");
  axis.values = split_values(text.substr(eq + 1), label);
  return axis;
}

void check_axes(const std::vector<VaryAxis>& axes) {
  std::set<std::string> seen;
  std::size_t variants = 1;
  for (const VaryAxis& axis : axes) {
    if (!seen.insert(axis.key).second)
      throw ConfigError("--vary " + axis.key + ": expected each key in one --vary, found it twice");
    if (axis.values.empty()) throw ConfigError("--vary " + axis.key + ": expected at least one value, found none");
    variants *= axis.values.size();
    if (variants > kMaxVariants)
      throw ConfigError("--vary: expected at most " + std::to_string(kMaxVariants) +
                        " variants in the grid, found more");
  }
}

std::vector<Variant> expand_grid(const std::vector<VaryAxis>& axes) {
  check_axes(axes);
  std::vector<Variant> grid(1);
  for (const VaryAxis& axis : axes) {
    // Each existing prefix spawns one variant per value of the next axis, so
    // the axes given first vary slowest.
    std::vector<Variant> next;
    next.reserve(grid.size() * axis.values.size());
    for (const Variant& prefix : grid) {
      for (const std::string& value : axis.values) {
        Variant v = prefix;
        v.assignments.push_back({axis.key, value});
        next.push_back(std::move(v));
      }
    }
    grid = std::move(next);
  }
  if (axes.empty()) grid.clear();
  for (std::size_t i = 0; i < grid.size(); ++i) grid[i].grid_index = i;
  return grid;
}

std::vector<std::string> short_keys(const std::vector<VaryAxis>& axes) {
  std::vector<std::vector<std::string>> parts;
  for (const VaryAxis& axis : axes) parts.push_back(split_path(axis.key));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    for (std::size_t n = 1; n <= parts[i].size(); ++n) {
      const std::string candidate = suffix(parts[i], n);
      bool unique = true;
      for (std::size_t j = 0; j < axes.size() && unique; ++j)
        unique = j == i || parts[j].size() < n || suffix(parts[j], n) != candidate;
      if (unique || n == parts[i].size()) {
        out.push_back(candidate);
        break;
      }
    }
  }
  return out;
}

std::string variant_label(const Variant& variant, const std::vector<std::string>& shortened) {
  std::string out;
  for (std::size_t i = 0; i < variant.assignments.size(); ++i) {
    const std::string& key = i < shortened.size() ? shortened[i] : variant.assignments[i].key;
    out += (out.empty() ? "" : " ") + key + "=" + variant.assignments[i].value;
  }
  return out;
}

}  // namespace pf::sweep
