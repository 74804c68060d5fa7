// Reads one mapping of the configuration: typed, range-checked keys, required
// or with defaults, and a final check that no key was left unread.
//
// Every accessor records its key as known; finish() then rejects whatever else
// the mapping holds, with a did-you-mean hint among the known keys. A parser
// therefore asks for every key it accepts (even ones it ends up not needing)
// before calling finish().
//
//   MapReader r(node);
//   spec.layers = r.get_int("layers", 1, 100000);
//   spec.tied_embeddings = r.get_bool_or("tied_embeddings", false);
//   r.finish();
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "io/config/config_node.h"
#include "io/config/scalar_values.h"

namespace pf::config {

inline constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();
inline constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

class MapReader {
 public:
  // Throws unless `node` is a mapping.
  explicit MapReader(const ConfigNode& node);

  const ConfigNode& node() const { return node_; }

  // The value of `key`, or nullptr when it is absent or null (`key:` / `key: ~`
  // mean "not set", so the default applies).
  const ConfigNode* find(std::string_view key);
  // The value of `key`; a missing required key is an error that says what it should be.
  const ConfigNode& require(std::string_view key, const std::string& expected);

  std::int64_t get_int(std::string_view key, std::int64_t min, std::int64_t max);
  std::int64_t get_int_or(std::string_view key, std::int64_t fallback, std::int64_t min, std::int64_t max);
  double get_double(std::string_view key, const NumberRange& range);
  double get_double_or(std::string_view key, double fallback, const NumberRange& range);
  bool get_bool(std::string_view key);
  bool get_bool_or(std::string_view key, bool fallback);
  std::string get_string(std::string_view key);
  std::string get_string_or(std::string_view key, const std::string& fallback);
  std::vector<std::int64_t> get_int_list_or(std::string_view key, std::int64_t min, std::int64_t max);

  template <typename E>
  E get_enum(std::string_view key, const EnumNames<E>& names) {
    return as_enum(require(key, choices(names)), names);
  }
  template <typename E>
  E get_enum_or(std::string_view key, E fallback, const EnumNames<E>& names) {
    const ConfigNode* value = find(key);
    return value ? as_enum(*value, names) : fallback;
  }

  // Marks `key` as accepted without reading it (a key another parser handles).
  void accept(std::string_view key) { known_.emplace_back(key); }

  // Throws on the first key no accessor asked for: "unknown key 'x', did you mean 'y'?".
  void finish() const;

 private:
  template <typename E>
  static std::string choices(const EnumNames<E>& names) {
    std::string out = "one of ";
    for (std::size_t i = 0; i < names.size(); ++i) out += (i ? " | " : "") + names[i].first;
    return out;
  }

  const ConfigNode& node_;
  std::vector<std::string> known_;
};

// The sub-mapping `key` of `parent`, or an empty mapping located at the parent
// when the key is absent: optional sections whose keys all have defaults.
ConfigNode section_or_empty(const ConfigNode& parent, std::string_view key);

}  // namespace pf::config
