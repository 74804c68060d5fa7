#include "io/config/part_references.h"

#include "io/config/config_error.h"
#include "io/config/yaml_reader.h"

namespace pf::config {

std::filesystem::path resolve_path(const ConfigNode& scalar) {
  const std::filesystem::path named(scalar.text());
  // Nodes without a file line come from the command line: relative to the cwd.
  if (named.is_absolute() || scalar.source().line == 0) return named.lexically_normal();
  const std::filesystem::path base = std::filesystem::path(scalar.source().file).parent_path();
  return (base / named).lexically_normal();
}

void expand_part_references(ConfigNode& root, const std::vector<std::string_view>& parts) {
  if (!root.is_map()) return;   // the experiment parser reports a non-mapping root
  for (const std::string_view part : parts) {
    ConfigNode* value = root.find(part);
    if (!value || !value->is_scalar()) continue;
    const std::filesystem::path file = resolve_path(*value);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) {
      fail_expected(*value, "an inline mapping or the path of a YAML file",
                    "'" + value->text() + "' (no such file: " + file.string() + ")");
    }
    *value = read_yaml_file(file.string(), value->path());
  }
}

void resolve_path_value(ConfigNode& root, std::string_view key_path) {
  ConfigNode* node = &root;
  std::size_t start = 0;
  while (true) {
    if (!node->is_map()) return;
    const std::size_t dot = key_path.find('.', start);
    const std::string_view key = key_path.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    node = node->find(key);
    if (!node) return;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (!node->is_scalar()) return;   // the part's parser reports a wrong type
  *node = ConfigNode::scalar(node->path(), node->source(), resolve_path(*node).string(), node->plain());
}

}  // namespace pf::config
