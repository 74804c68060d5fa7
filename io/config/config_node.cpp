#include "io/config/config_node.h"

#include <utility>

namespace pf::config {

ConfigNode ConfigNode::null(std::string path, SourceLocation source) {
  ConfigNode node;
  node.kind_ = Kind::null;
  node.path_ = std::move(path);
  node.source_ = std::move(source);
  return node;
}

ConfigNode ConfigNode::scalar(std::string path, SourceLocation source, std::string text, bool plain) {
  ConfigNode node = null(std::move(path), std::move(source));
  node.kind_ = Kind::scalar;
  node.text_ = std::move(text);
  node.plain_ = plain;
  return node;
}

ConfigNode ConfigNode::map(std::string path, SourceLocation source) {
  ConfigNode node = null(std::move(path), std::move(source));
  node.kind_ = Kind::map;
  return node;
}

ConfigNode ConfigNode::sequence(std::string path, SourceLocation source) {
  ConfigNode node = null(std::move(path), std::move(source));
  node.kind_ = Kind::sequence;
  return node;
}

std::string ConfigNode::where() const {
  std::string out = source_.file;
  if (source_.line > 0) {
    out += ':';
    out += std::to_string(source_.line);
  }
  // An override's own text already names the key it sets.
  const bool path_is_implied = source_.line == 0 && path_ == source_.anchor_path;
  if (!path_.empty() && !path_is_implied) {
    out += ": ";
    out += path_;
  }
  return out;
}

std::string ConfigNode::describe() const {
  switch (kind_) {
    case Kind::null: return "nothing";
    case Kind::scalar: return plain_ ? "'" + text_ + "'" : "string \"" + text_ + "\"";
    case Kind::map: return "a mapping";
    case Kind::sequence: return "a sequence";
  }
  return "nothing";
}

const ConfigNode* ConfigNode::find(std::string_view key) const {
  for (const ConfigEntry& entry : entries_) {
    if (entry.key == key) return &entry.value;
  }
  return nullptr;
}

ConfigNode* ConfigNode::find(std::string_view key) {
  for (ConfigEntry& entry : entries_) {
    if (entry.key == key) return &entry.value;
  }
  return nullptr;
}

ConfigNode& ConfigNode::set(std::string_view key, ConfigNode value) {
  if (ConfigNode* existing = find(key)) {
    *existing = std::move(value);
    return *existing;
  }
  entries_.push_back(ConfigEntry{std::string(key), std::move(value)});
  return entries_.back().value;
}

std::vector<std::string> ConfigNode::keys() const {
  std::vector<std::string> out;
  out.reserve(entries_.size());
  for (const ConfigEntry& entry : entries_) out.push_back(entry.key);
  return out;
}

void ConfigNode::push_back(ConfigNode item) { items_.push_back(std::move(item)); }

std::string ConfigNode::child_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

std::string ConfigNode::item_path(std::size_t index) const {
  return path_ + "[" + std::to_string(index) + "]";
}

const ConfigNode& nearest_node(const ConfigNode& root, std::string_view path) {
  const ConfigNode* node = &root;
  std::size_t start = 0;
  while (start <= path.size() && node->is_map()) {
    const std::size_t dot = path.find('.', start);
    const ConfigNode* child = node->find(path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (!child || child->is_null()) break;
    node = child;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return *node;
}

}  // namespace pf::config
