#include "io/report/report_figures.h"

#include <variant>

#include "core/error.h"

namespace pf::report {
namespace {

using nlohmann::ordered_json;

std::vector<std::string> split(const std::string& key) {
  std::vector<std::string> parts;
  std::size_t at = 0;
  for (std::size_t dot = key.find('.'); dot != std::string::npos; dot = key.find('.', at)) {
    parts.push_back(key.substr(at, dot - at));
    at = dot + 1;
  }
  parts.push_back(key.substr(at));
  return parts;
}

}  // namespace

void write_figures(ordered_json& report, const core::Statistics& figures) {
  for (const core::Statistics::Figure& f : figures.figures()) {
    const std::vector<std::string> path = split(f.key);
    ordered_json* node = &report;
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
      if (!node->contains(path[i])) (*node)[path[i]] = ordered_json::object();
      node = &(*node)[path[i]];
      if (!node->is_object())
        throw SimulationError("report: figure '" + f.key + "' descends into '" + path[i] + "', which is not an object");
    }
    if (node->contains(path.back()))
      throw SimulationError("report: figure '" + f.key + "' would overwrite a key the report already has");
    if (const auto* i = std::get_if<std::int64_t>(&f.value)) (*node)[path.back()] = *i;
    else (*node)[path.back()] = std::get<double>(f.value);
  }
}

const ordered_json* figure_value(const ordered_json& report, const std::string& key) {
  const ordered_json* node = &report;
  for (const std::string& part : split(key)) {
    if (!node->is_object() || !node->contains(part)) return nullptr;
    node = &node->at(part);
  }
  return node;
}

}  // namespace pf::report
