#include "io/config/did_you_mean.h"

#include <algorithm>
#include <limits>

namespace pf::config {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rolling rows of the dynamic-programming table are enough for OSA.
  const std::size_t n = b.size();
  std::vector<std::size_t> before_prev(n + 1), prev(n + 1), cur(n + 1);
  for (std::size_t j = 0; j <= n; ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= n; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        cur[j] = std::min(cur[j], before_prev[j - 2] + 1);
      }
    }
    std::swap(before_prev, prev);
    std::swap(prev, cur);
  }
  return prev[n];
}

namespace {

bool is_affix(std::string_view word, std::string_view candidate) {
  if (word.size() < 3 || candidate.size() < 3) return false;
  const std::string_view shorter = word.size() < candidate.size() ? word : candidate;
  const std::string_view longer = word.size() < candidate.size() ? candidate : word;
  return longer.starts_with(shorter) || longer.ends_with(shorter);
}

}  // namespace

std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  // Rank by distance, then prefer a candidate with the same first letter (typos
  // rarely hit the first one: "tpp" means "tp", not "pp"), then list order.
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  bool best_same_start = false;
  std::optional<std::string> match;
  for (const std::string& candidate : candidates) {
    const std::size_t d = edit_distance(word, candidate);
    if (d > limit && !is_affix(word, candidate)) continue;
    const bool same_start = !word.empty() && !candidate.empty() && word.front() == candidate.front();
    if (d < best_distance || (d == best_distance && same_start && !best_same_start)) {
      best_distance = d;
      best_same_start = same_start;
      match = candidate;
    }
  }
  return match;
}

std::string suggestion_hint(std::string_view word, const std::vector<std::string>& candidates) {
  if (candidates.empty()) return "";
  if (auto match = closest_match(word, candidates)) return ", did you mean '" + *match + "'?";
  std::string list;
  for (const std::string& candidate : candidates) list += (list.empty() ? "" : ", ") + candidate;
  return " (expected one of: " + list + ")";
}

}  // namespace pf::config
