// "did you mean 'X'?" hints for misspelt keys and enum values.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pf::config {

// Optimal-string-alignment distance: insertions, deletions, substitutions and
// swaps of two adjacent characters each cost 1 ("tpp" -> "tp" is 1,
// "seuqence" -> "sequence" is 1).
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word`, if it is near enough to be a plausible typo:
// within a third of the word's length (at least 2 edits), or when one is the
// other's prefix/suffix ("nic_bandwidth" for "nic_bandwidth_gbps"). Ties go to
// a candidate with the same first letter, then to the earlier one, so hints
// are deterministic.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates);

// ", did you mean 'X'?" when a candidate is close, else " (expected one of: a, b, c)";
// empty when there are no candidates at all.
std::string suggestion_hint(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace pf::config
