#include "io/config/fault_parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <string>
#include <string_view>

#include "io/config/config_error.h"
#include "io/config/hardware_parser.h"
#include "io/config/map_reader.h"
#include "io/config/part_references.h"
#include "io/config/yaml_reader.h"

namespace pf::config {
namespace {

using models::FaultSpec;
using models::FaultTarget;

const EnumNames<models::JitterDistribution> kDistributions{{"lognormal", models::JitterDistribution::lognormal},
                                                           {"normal", models::JitterDistribution::normal}};

constexpr std::string_view kVertexForm = "a vertex name as /links prints it (gpu17, nic3, nvswitch0, leaf3, spine1, core0)";

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

bool parse_index(std::string_view text, long long& out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size() && out >= 0;
}

// "leaf3": a kind from the cluster graph's names followed by a number.
bool valid_vertex_name(std::string_view name) {
  for (std::string_view kind : {"gpu", "nvswitch", "nic", "leaf", "spine", "core"}) {
    if (name.size() > kind.size() && name.substr(0, kind.size()) == kind) {
      long long index = 0;
      if (parse_index(name.substr(kind.size()), index)) return true;
    }
  }
  return false;
}

std::string vertex_name(const ConfigNode& node, std::string_view text) {
  const std::string name = trim(text);
  if (!valid_vertex_name(name)) fail_expected(node, std::string(kVertexForm), "'" + name + "'");
  return name;
}

// Bandwidth and failure keys shared by link, switch and random_links entries.
void read_link_effect(MapReader& r, const ConfigNode& where, FaultSpec& f) {
  // An explicit factor of 1 is allowed (the healthy end of a sweep); no key at all is a mistake.
  if (!r.find("bandwidth_factor") && !r.find("failed"))
    fail_at(where, "expected bandwidth_factor or failed, found neither: the fault changes nothing");
  // Below 1e-4 a link is better written as failed (and its serialisation times would overflow).
  f.bandwidth_factor = r.get_double_or("bandwidth_factor", 1.0, NumberRange::closed(1e-4, 100.0));
  f.failed = r.get_bool_or("failed", false);
}

void read_gpu_fault(MapReader& r, const ConfigNode& item, int gpu_count, const models::HardwareSpec& base, FaultSpec& f) {
  f.target = FaultTarget::gpus;
  const ConfigNode& gpus = r.require("gpus", "a GPU list: \"17\", \"512-519\", \"0-3,8\" or all");
  f.written = gpus.text();
  f.gpus = parse_gpu_list(gpus, gpu_count);
  f.compute_slowdown = r.get_double_or("compute_slowdown", 1.0, NumberRange{0.0, 1000.0, true, false});
  if (const ConfigNode* hw = r.find("hardware")) {
    if (!hw->is_map()) fail_expected(*hw, "the path of a hardware YAML file or a hardware mapping");
    f.hardware = parse_hardware(*hw);
    f.hardware_name = f.hardware->gpu.name.empty() ? std::filesystem::path(hw->source().file).stem().string()
                                                   : f.hardware->gpu.name;
    if (f.hardware->node.gpus_per_node != base.node.gpus_per_node || f.hardware->node.nics_per_node != base.node.nics_per_node)
      fail_expected(*hw, "a server of the cluster's shape (" + std::to_string(base.node.gpus_per_node) + " GPUs, " +
                             std::to_string(base.node.nics_per_node) + " NICs)",
                    std::to_string(f.hardware->node.gpus_per_node) + " GPUs, " +
                        std::to_string(f.hardware->node.nics_per_node) + " NICs");
  }
  if (const ConfigNode* jitter = r.find("compute_jitter")) {
    MapReader j(*jitter);
    f.jitter.distribution = j.get_enum_or("distribution", models::JitterDistribution::lognormal, kDistributions);
    f.jitter.sigma = j.get_double("sigma", NumberRange::closed(0.0, 2.0));
    f.jitter.seed = static_cast<std::uint64_t>(j.get_int_or("seed", 0, 0, kInt64Max));
    j.finish();
  }
  if (!r.find("compute_slowdown") && !f.hardware && !r.find("compute_jitter"))
    fail_at(item, "expected compute_slowdown, hardware or compute_jitter, found none: the fault changes nothing");
}

void read_link_fault(MapReader& r, const ConfigNode& item, FaultSpec& f) {
  f.target = FaultTarget::link;
  const ConfigNode& link = r.require("link", "\"a->b\" (one direction) or \"a<->b\" (both)");
  if (!link.is_scalar()) fail_expected(link, "\"a->b\" (one direction) or \"a<->b\" (both)");
  f.written = link.text();
  const std::string_view text = link.text();
  const std::size_t both = text.find("<->");
  const std::size_t one = text.find("->");
  if (one == std::string_view::npos) fail_expected(link, "\"a->b\" (one direction) or \"a<->b\" (both)");
  f.both_directions = both != std::string_view::npos;
  const std::size_t cut = f.both_directions ? both : one;
  f.src = vertex_name(link, text.substr(0, cut));
  f.dst = vertex_name(link, text.substr(cut + (f.both_directions ? 3 : 2)));
  if (f.src == f.dst) fail_expected(link, "two different vertices", "'" + f.written + "'");
  read_link_effect(r, item, f);
}

void read_switch_fault(MapReader& r, const ConfigNode& item, FaultSpec& f) {
  f.target = FaultTarget::switch_vertex;
  const ConfigNode& sw = r.require("switch", "a switch name: leaf3, spine1, core0 or nvswitch2");
  if (!sw.is_scalar()) fail_expected(sw, "a switch name: leaf3, spine1, core0 or nvswitch2");
  f.written = sw.text();
  f.src = vertex_name(sw, sw.text());
  if (f.src.rfind("gpu", 0) == 0 || f.src.rfind("nic", 0) == 0)
    fail_expected(sw, "a switch (leaf, spine, core or nvswitch)", "'" + f.src + "'");
  read_link_effect(r, item, f);
}

void read_random_links(MapReader& r, FaultSpec& f) {
  f.target = FaultTarget::random_links;
  f.written = "random_links";
  const ConfigNode& node = r.require("random_links", "a mapping with fraction, seed and bandwidth_factor or failed");
  MapReader m(node);
  f.fraction = m.get_double("fraction", NumberRange::fraction());
  f.seed = static_cast<std::uint64_t>(m.get_int_or("seed", 0, 0, kInt64Max));
  read_link_effect(m, node, f);
  m.finish();
}

FaultSpec parse_fault(const ConfigNode& item, int gpu_count, const models::HardwareSpec& base) {
  MapReader r(item);
  FaultSpec f;
  f.origin = item.where();
  int targets = 0;
  for (std::string_view key : {"gpus", "link", "switch", "random_links"}) targets += r.find(key) != nullptr;
  if (targets != 1)
    fail_at(item, "expected exactly one of gpus, link, switch or random_links, found " + std::to_string(targets));
  if (r.find("gpus")) {
    read_gpu_fault(r, item, gpu_count, base, f);
  } else if (r.find("link")) {
    read_link_fault(r, item, f);
  } else if (r.find("switch")) {
    read_switch_fault(r, item, f);
  } else {
    read_random_links(r, f);
  }
  // Keys of the other targets are unknown here: finish() names them.
  r.finish();
  return f;
}

}  // namespace

std::vector<int> parse_gpu_list(const ConfigNode& node, int gpu_count) {
  const std::string expected = "a GPU list: \"17\", \"512-519\", \"0-3,8\" or all (GPUs 0.." +
                               std::to_string(gpu_count - 1) + ")";
  if (!node.is_scalar()) fail_expected(node, expected);
  const std::string text = trim(node.text());
  std::vector<int> out;
  if (text == "all") {
    for (int g = 0; g < gpu_count; ++g) out.push_back(g);
    return out;
  }
  std::string_view rest = text;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string part = trim(rest.substr(0, comma));
    const std::size_t dash = part.find('-');
    long long lo = 0, hi = 0;
    const bool ok = dash == std::string::npos
                        ? parse_index(part, lo) && (hi = lo, true)
                        : parse_index(trim(std::string_view(part).substr(0, dash)), lo) &&
                              parse_index(trim(std::string_view(part).substr(dash + 1)), hi);
    if (!ok || lo > hi) fail_expected(node, expected, "'" + part + "'");
    if (hi >= gpu_count) fail_expected(node, expected, "GPU " + std::to_string(hi));
    for (long long g = lo; g <= hi; ++g) out.push_back(static_cast<int>(g));
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<models::FaultSpec> parse_faults(const ConfigNode& node, int gpu_count, const models::HardwareSpec& hardware) {
  std::vector<models::FaultSpec> out;
  if (node.is_null()) return out;
  if (!node.is_sequence()) fail_expected(node, "a sequence of faults (- {gpus: \"17\", compute_slowdown: 1.25})");
  for (const ConfigNode& item : node.items()) out.push_back(parse_fault(item, gpu_count, hardware));
  return out;
}

void expand_fault_hardware(ConfigNode& root) {
  if (!root.is_map()) return;
  ConfigNode* faults = root.find("faults");
  if (!faults || !faults->is_sequence()) return;
  for (std::size_t i = 0; i < faults->items().size(); ++i) {
    ConfigNode& item = *faults->item(i);
    if (item.is_map()) {
      ConfigNode* hw = item.find("hardware");
      if (hw && hw->is_scalar()) {
        const std::filesystem::path file = resolve_path(*hw);
        std::error_code ec;
        if (!std::filesystem::is_regular_file(file, ec))
          fail_expected(*hw, "an inline hardware mapping or the path of a hardware YAML file",
                        "'" + hw->text() + "' (no such file: " + file.string() + ")");
        *hw = read_yaml_file(file.string(), hw->path());
      }
    }
  }
}

}  // namespace pf::config
