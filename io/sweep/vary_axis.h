// The grid of a sweep (io/cli/README.md, `preflight sweep --vary KEY=V1,V2,...`):
// each --vary names one key of the merged configuration and the values it
// takes; the variants are the cartesian product of those lists, the first
// --vary varying slowest (like nested loops written in the order given).
//
//   VaryAxis tp = parse_vary("parallelism.tp=2,4,8");
//   VaryAxis bw = parse_vary("hardware.node.nic_bandwidth_gbps=100,400");
//   expand_grid({tp, bw})  ->  tp=2 bw=100, tp=2 bw=400, tp=4 bw=100, ...
//
// A value is YAML text, as after `--set KEY=`: a scalar, or a flow sequence or
// mapping ("[40,40]"), so commas inside brackets or quotes do not split values.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pf::sweep {

struct VaryAxis {
  std::string key;                  // "parallelism.tp"
  std::vector<std::string> values;  // {"2", "4", "8"}, in the order given
};

// One key set to one value: what a variant adds after the --set overrides.
struct Assignment {
  std::string key;
  std::string value;
  bool operator==(const Assignment&) const = default;
};

struct Variant {
  std::size_t grid_index = 0;           // position in grid order (0 = the baseline)
  std::vector<Assignment> assignments;  // one per axis, in --vary order
  // "KEY=VALUE" strings for config::load_experiment's overrides.
  std::vector<std::string> overrides() const;
};

// Grids beyond this many variants are a usage error, not a week-long job.
inline constexpr std::size_t kMaxVariants = 100000;

// "KEY=V1,V2,...": throws pf::ConfigError ("--vary TEXT: expected ..., found ...")
// for a missing '=', a malformed dotted key, or an empty value.
VaryAxis parse_vary(std::string_view text);

// Splits a value list at the commas that are outside brackets, braces and quotes;
// values are trimmed. Throws pf::ConfigError on an empty value or unbalanced brackets.
std::vector<std::string> split_values(std::string_view list, const std::string& label);

// Rejects a key varied twice and grids over kMaxVariants (pf::ConfigError).
void check_axes(const std::vector<VaryAxis>& axes);

// The cartesian product, first axis slowest; grid_index counts from 0.
std::vector<Variant> expand_grid(const std::vector<VaryAxis>& axes);

// For display: each key's shortest dotted suffix that no other axis shares
// ("hardware.node.nic_bandwidth_gbps" -> "nic_bandwidth_gbps").
std::vector<std::string> short_keys(const std::vector<VaryAxis>& axes);

// "tp=2 nic_bandwidth_gbps=100", with the keys shortened as short_keys() does.
std::string variant_label(const Variant& variant, const std::vector<std::string>& shortened);

}  // namespace pf::sweep
