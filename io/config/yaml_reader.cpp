#include "io/config/yaml_reader.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"

namespace pf::config {

namespace {

// How a yaml-cpp position becomes a SourceLocation: file lines are 1-based
// from yaml-cpp's 0-based marks; override values have no lines at all.
struct Locator {
  SourceLocation base;
  bool has_lines = true;

  SourceLocation at(const YAML::Mark& mark, int fallback_line) const {
    SourceLocation loc = base;
    if (has_lines) loc.line = mark.line >= 0 ? mark.line + 1 : fallback_line;
    return loc;
  }
};

ConfigNode convert(const YAML::Node& node, const std::string& path, const SourceLocation& loc,
                   const Locator& locator);

ConfigNode convert_map(const YAML::Node& node, const std::string& path, const SourceLocation& loc,
                       const Locator& locator) {
  ConfigNode out = ConfigNode::map(path, loc);
  for (const auto& pair : node) {
    const YAML::Node key = pair.first;
    const YAML::Node value = pair.second;
    // A value is reported at its key's line: for `node:` followed by an
    // indented block, that is the line a user would look at.
    const SourceLocation key_loc = locator.at(key.Mark(), loc.line);
    if (!key.IsScalar()) {
      throw ConfigError(key_loc.file + ":" + std::to_string(key_loc.line) + ": " + (path.empty() ? "" : path + ": ") +
                        "expected a plain key, found a " + (key.IsMap() ? "mapping" : "sequence") + " used as a key");
    }
    const std::string child_path = out.child_path(key.Scalar());
    if (out.find(key.Scalar())) {
      throw ConfigError(key_loc.file + ":" + std::to_string(key_loc.line) + ": " + child_path +
                        ": duplicate key '" + key.Scalar() + "'");
    }
    out.set(key.Scalar(), convert(value, child_path, key_loc, locator));
  }
  return out;
}

ConfigNode convert(const YAML::Node& node, const std::string& path, const SourceLocation& loc,
                   const Locator& locator) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return convert_map(node, path, loc, locator);
    case YAML::NodeType::Sequence: {
      ConfigNode out = ConfigNode::sequence(path, loc);
      std::size_t index = 0;
      for (const YAML::Node& item : node) {
        out.push_back(convert(item, out.item_path(index++), locator.at(item.Mark(), loc.line), locator));
      }
      return out;
    }
    case YAML::NodeType::Scalar:
      // yaml-cpp tags plain scalars "?"; quoted ones "!" and explicitly tagged
      // ones with their tag: only plain scalars may be read as numbers.
      return ConfigNode::scalar(path, loc, node.Scalar(), node.Tag() == "?");
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined: return ConfigNode::null(path, loc);
  }
  return ConfigNode::null(path, loc);
}

ConfigNode parse(const std::string& text, const Locator& locator, const std::string& key_path) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    const SourceLocation loc = locator.at(e.mark, 1);
    std::string where = loc.file + (locator.has_lines ? ":" + std::to_string(loc.line) : "");
    throw ConfigError(where + ": " + (key_path.empty() ? "" : key_path + ": ") + "invalid YAML: " + e.msg);
  }
  return convert(root, key_path, locator.at(root.Mark(), 1), locator);
}

}  // namespace

ConfigNode read_yaml_file(const std::string& file, const std::string& key_path) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) throw ConfigError(file + ": expected a YAML file, found a directory");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError(file + ": cannot open file (" + std::strerror(errno) + ")");
  std::ostringstream text;
  text << in.rdbuf();
  return read_yaml_text(text.str(), file, key_path);
}

ConfigNode read_yaml_text(const std::string& text, const std::string& file_label, const std::string& key_path) {
  return parse(text, Locator{SourceLocation{file_label, 1, ""}, true}, key_path);
}

ConfigNode read_yaml_value(const std::string& text, const SourceLocation& source, const std::string& key_path) {
  return parse(text, Locator{source, false}, key_path);
}

}  // namespace pf::config
