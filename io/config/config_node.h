// The configuration tree: what yaml-cpp parsed, plus where every value came from.
//
// yaml-cpp reports a node's line but not its file, and one experiment merges
// several files and --set overrides into one tree. Each ConfigNode therefore
// carries its source (file and line, or the override that set it) and its key
// path in the merged tree ("hardware.node.nic_bandwidth_gbps"), so an error
// about any value can say exactly where to fix it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace pf::config {

// Where a node came from. line is 1-based; 0 means the node came from no file
// line (a --set override or a command-line option); then `file` holds that text.
struct SourceLocation {
  std::string file;
  int line = 0;
  // For an override: the key path it named. A node at exactly that path is
  // described by the override text alone ("--set parallelism.tp=4").
  std::string anchor_path;
};

struct ConfigEntry;

class ConfigNode {
 public:
  enum class Kind { null, scalar, map, sequence };

  ConfigNode() = default;
  static ConfigNode null(std::string path, SourceLocation source);
  static ConfigNode scalar(std::string path, SourceLocation source, std::string text, bool plain = true);
  static ConfigNode map(std::string path, SourceLocation source);
  static ConfigNode sequence(std::string path, SourceLocation source);

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::null; }
  bool is_scalar() const { return kind_ == Kind::scalar; }
  bool is_map() const { return kind_ == Kind::map; }
  bool is_sequence() const { return kind_ == Kind::sequence; }

  const std::string& path() const { return path_; }
  const SourceLocation& source() const { return source_; }
  // "FILE:LINE: KEY.PATH", the prefix of every message about this node.
  std::string where() const;
  // What the node holds, for "found ...": 'text', a mapping, a sequence, nothing.
  std::string describe() const;

  // Scalars. A plain scalar was written unquoted, so it may be a number or a
  // boolean; a quoted one is always a string.
  const std::string& text() const { return text_; }
  bool plain() const { return plain_; }

  // Maps keep the order of the file; keys are unique.
  const std::vector<ConfigEntry>& entries() const { return entries_; }
  const ConfigNode* find(std::string_view key) const;
  ConfigNode* find(std::string_view key);
  // Replaces the value of an existing key in place, or appends a new key.
  ConfigNode& set(std::string_view key, ConfigNode value);
  std::vector<std::string> keys() const;

  // Sequences.
  const std::vector<ConfigNode>& items() const { return items_; }
  void push_back(ConfigNode item);
  // Item `index` for changing it in place; nullptr when out of range.
  ConfigNode* item(std::size_t index) { return index < items_.size() ? &items_[index] : nullptr; }

  // Key path of a child of this map: "a.b" + "c" -> "a.b.c"; at the root just "c".
  std::string child_path(std::string_view key) const;
  std::string item_path(std::size_t index) const;

 private:
  Kind kind_ = Kind::null;
  std::string path_;
  SourceLocation source_;
  std::string text_;
  bool plain_ = true;
  std::vector<ConfigEntry> entries_;
  std::vector<ConfigNode> items_;
};

struct ConfigEntry {
  std::string key;
  ConfigNode value;
};

// The node at dotted `path` below `root` ("parallelism.tp"), or the deepest
// existing node on the way there: where to point an error about a value that
// may have come from a default.
const ConfigNode& nearest_node(const ConfigNode& root, std::string_view path);

}  // namespace pf::config
