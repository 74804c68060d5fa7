#include "io/config/yaml_writer.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <vector>

namespace pf::config {

namespace {

bool all_scalars(const ConfigNode& sequence) {
  return std::all_of(sequence.items().begin(), sequence.items().end(),
                     [](const ConfigNode& item) { return item.is_scalar() || item.is_null(); });
}

void emit(YAML::Emitter& out, const ConfigNode& node) {
  switch (node.kind()) {
    case ConfigNode::Kind::null: out << YAML::Null; break;
    case ConfigNode::Kind::scalar:
      // Quoted strings stay quoted so "123" does not come back as a number.
      if (node.plain()) {
        out << node.text();
      } else {
        out << YAML::DoubleQuoted << node.text();
      }
      break;
    case ConfigNode::Kind::sequence:
      // Short lists of numbers ([8, 8, 7]) read best on one line.
      if (all_scalars(node)) out << YAML::Flow;
      out << YAML::BeginSeq;
      for (const ConfigNode& item : node.items()) emit(out, item);
      out << YAML::EndSeq;
      break;
    case ConfigNode::Kind::map: {
      std::vector<const ConfigEntry*> sorted;
      for (const ConfigEntry& entry : node.entries()) sorted.push_back(&entry);
      std::sort(sorted.begin(), sorted.end(), [](const ConfigEntry* a, const ConfigEntry* b) { return a->key < b->key; });
      out << YAML::BeginMap;
      for (const ConfigEntry* entry : sorted) {
        out << YAML::Key << entry->key << YAML::Value;
        emit(out, entry->value);
      }
      out << YAML::EndMap;
      break;
    }
  }
}

}  // namespace

std::string emit_yaml(const ConfigNode& root) {
  YAML::Emitter out;
  emit(out, root);
  std::string text = out.c_str();
  if (!text.empty() && text.back() != '\n') text += '\n';
  return text;
}

}  // namespace pf::config
