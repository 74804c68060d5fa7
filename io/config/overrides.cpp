#include "io/config/overrides.h"

#include <cctype>

#include "core/error.h"
#include "io/config/config_error.h"
#include "io/config/yaml_reader.h"

namespace pf::config {

namespace {

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

bool valid_component(const std::string& part) {
  if (part.empty()) return false;
  for (const char c : part) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  }
  return true;
}

std::string trim(std::string_view text) {
  std::size_t begin = 0;
  std::size_t end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return std::string(text.substr(begin, end - begin));
}

// A numeric key component indexes an existing item of a sequence
// (faults.0.compute_slowdown: the first fault's slowdown).
ConfigNode* sequence_item(ConfigNode& sequence, const std::string& part, const Override& override_spec) {
  std::size_t index = 0;
  bool numeric = !part.empty() && part.size() < 10;
  for (const char c : part) numeric = numeric && std::isdigit(static_cast<unsigned char>(c));
  if (numeric) index = static_cast<std::size_t>(std::stoul(part));
  ConfigNode* item = numeric ? sequence.item(index) : nullptr;
  if (!item) {
    fail_at(sequence, "cannot apply " + override_spec.label + ": expected an item number 0.." +
                          std::to_string(static_cast<long long>(sequence.items().size()) - 1) + " of this sequence, found '" +
                          part + "'");
  }
  return item;
}

}  // namespace

Override parse_override(std::string_view text) {
  const std::string label = "--set " + std::string(text);
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    throw ConfigError(label + ": expected KEY=VALUE, found no '='");
  }
  Override out{trim(text.substr(0, eq)), trim(text.substr(eq + 1)), label};
  for (const std::string& part : split_path(out.key)) {
    if (!valid_component(part)) {
      throw ConfigError(label + ": expected a dotted key path like parallelism.tp, found '" + out.key + "'");
    }
  }
  if (out.value.empty()) throw ConfigError(label + ": expected a value after '=', found nothing");
  return out;
}

void apply_override(ConfigNode& root, const Override& override_spec) {
  const SourceLocation source{override_spec.label, 0, override_spec.key};
  const std::vector<std::string> parts = split_path(override_spec.key);
  ConfigNode* node = &root;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (node->is_sequence()) {
      node = sequence_item(*node, parts[i], override_spec);
      continue;
    }
    if (!node->is_map()) {
      fail_at(*node, "cannot apply " + override_spec.label + ": expected a mapping here, found " + node->describe());
    }
    ConfigNode* child = node->find(parts[i]);
    if (!child || child->is_null()) {
      child = &node->set(parts[i], ConfigNode::map(node->child_path(parts[i]), source));
    }
    node = child;
  }
  if (node->is_sequence()) {
    ConfigNode* item = sequence_item(*node, parts.back(), override_spec);
    *item = read_yaml_value(override_spec.value, source, item->path());
    return;
  }
  if (!node->is_map()) {
    fail_at(*node, "cannot apply " + override_spec.label + ": expected a mapping here, found " + node->describe());
  }
  const std::string path = node->child_path(parts.back());
  node->set(parts.back(), read_yaml_value(override_spec.value, source, path));
}

}  // namespace pf::config
