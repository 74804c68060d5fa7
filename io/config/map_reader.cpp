#include "io/config/map_reader.h"

#include <algorithm>

#include "io/config/config_error.h"
#include "io/config/did_you_mean.h"

namespace pf::config {

MapReader::MapReader(const ConfigNode& node) : node_(node) {
  if (!node.is_map()) fail_expected(node, "a mapping");
}

const ConfigNode* MapReader::find(std::string_view key) {
  accept(key);
  const ConfigNode* value = node_.find(key);
  return value && !value->is_null() ? value : nullptr;
}

const ConfigNode& MapReader::require(std::string_view key, const std::string& expected) {
  accept(key);
  const ConfigNode* value = node_.find(key);
  if (!value) fail_at(node_, "missing required key '" + std::string(key) + "' (" + expected + ")");
  if (value->is_null()) fail_expected(*value, expected);
  return *value;
}

std::int64_t MapReader::get_int(std::string_view key, std::int64_t min, std::int64_t max) {
  return as_int(require(key, describe_int_range(min, max)), min, max);
}

std::int64_t MapReader::get_int_or(std::string_view key, std::int64_t fallback, std::int64_t min, std::int64_t max) {
  const ConfigNode* value = find(key);
  return value ? as_int(*value, min, max) : fallback;
}

double MapReader::get_double(std::string_view key, const NumberRange& range) {
  return as_double(require(key, range.describe()), range);
}

double MapReader::get_double_or(std::string_view key, double fallback, const NumberRange& range) {
  const ConfigNode* value = find(key);
  return value ? as_double(*value, range) : fallback;
}

bool MapReader::get_bool(std::string_view key) { return as_bool(require(key, "true or false")); }

bool MapReader::get_bool_or(std::string_view key, bool fallback) {
  const ConfigNode* value = find(key);
  return value ? as_bool(*value) : fallback;
}

std::string MapReader::get_string(std::string_view key) { return as_string(require(key, "a string")); }

std::string MapReader::get_string_or(std::string_view key, const std::string& fallback) {
  const ConfigNode* value = find(key);
  return value ? as_string(*value) : fallback;
}

std::vector<std::int64_t> MapReader::get_int_list_or(std::string_view key, std::int64_t min, std::int64_t max) {
  const ConfigNode* value = find(key);
  return value ? as_int_list(*value, min, max) : std::vector<std::int64_t>{};
}

void MapReader::finish() const {
  for (const ConfigEntry& entry : node_.entries()) {
    if (std::find(known_.begin(), known_.end(), entry.key) != known_.end()) continue;
    std::vector<std::string> known = known_;
    std::sort(known.begin(), known.end());
    known.erase(std::unique(known.begin(), known.end()), known.end());
    fail_at(entry.value, "unknown key '" + entry.key + "'" + suggestion_hint(entry.key, known));
  }
}

ConfigNode section_or_empty(const ConfigNode& parent, std::string_view key) {
  if (const ConfigNode* section = parent.find(key); section && !section->is_null()) return *section;
  return ConfigNode::map(parent.child_path(key), parent.source());
}

}  // namespace pf::config
