#include "io/config/output_parser.h"

#include <charconv>

#include "io/config/config_error.h"
#include "io/config/map_reader.h"

namespace pf::config {

namespace {

std::optional<int> parse_gpu_id(std::string_view text) {
  int value = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty() || value < 0) return std::nullopt;
  return value;
}

}  // namespace

std::optional<std::vector<GpuRange>> parse_gpu_range_list(std::string_view text) {
  std::vector<GpuRange> ranges;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    std::string_view item = text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    const std::size_t dash = item.find('-');
    const auto first = parse_gpu_id(item.substr(0, dash));
    const auto last = dash == std::string_view::npos ? first : parse_gpu_id(item.substr(dash + 1));
    if (!first || !last || *first > *last) return std::nullopt;
    ranges.push_back({*first, *last});
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return ranges;
}

models::OutputSpec parse_output(const ConfigNode& node, const std::string& default_dir) {
  MapReader r(node);
  models::OutputSpec o;
  o.dir = r.get_string_or("dir", default_dir);
  if (o.dir.empty()) fail_expected(nearest_node(node, "dir"), "a non-empty directory path");
  o.timeline = r.get_bool_or("timeline", true);
  o.timeline_gpus = r.get_string_or("timeline_gpus", "auto");
  r.finish();
  const std::string& sel = o.timeline_gpus;
  if (sel != "auto" && sel != "all" && sel != "first_replica" && !parse_gpu_range_list(sel)) {
    fail_expected(nearest_node(node, "timeline_gpus"), "auto | all | first_replica | a range list like \"0-63,512-575\"");
  }
  return o;
}

}  // namespace pf::config
