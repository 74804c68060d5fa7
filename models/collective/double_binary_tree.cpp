#include "models/collective/double_binary_tree.h"

#include <algorithm>

namespace pf::models::collective {
namespace {

int parent_in_first_tree(int p, int m) {
  if (p == 0) return -1;
  const int low = p & -p;
  // Climbing changes one bit and raises the lowest set bit, so it ends at 0.
  if ((p & (2 * low)) == 0 && p + low < m) return p + low;
  return p - low;
}

}  // namespace

std::vector<int> binary_tree_parents(int m) {
  std::vector<int> parent(static_cast<std::size_t>(std::max(m, 0)));
  for (int p = 0; p < m; ++p) parent[static_cast<std::size_t>(p)] = parent_in_first_tree(p, m);
  return parent;
}

std::vector<int> second_tree_parents(int m) {
  // sigma maps a position of the second tree to the role it plays in the first.
  const auto sigma = [m](int x) { return m % 2 == 0 ? m - 1 - x : (x + 1) % m; };
  const auto sigma_inverse = [m](int y) { return m % 2 == 0 ? m - 1 - y : (y - 1 + m) % m; };
  std::vector<int> parent(static_cast<std::size_t>(std::max(m, 0)));
  for (int x = 0; x < m; ++x) {
    const int p = parent_in_first_tree(sigma(x), m);
    parent[static_cast<std::size_t>(x)] = p < 0 ? -1 : sigma_inverse(p);
  }
  return parent;
}

int tree_depth(const std::vector<int>& parent) {
  int deepest = 0;
  for (std::size_t p = 0; p < parent.size(); ++p) {
    int d = 0;
    for (int q = static_cast<int>(p); parent[static_cast<std::size_t>(q)] >= 0; q = parent[static_cast<std::size_t>(q)]) ++d;
    deepest = std::max(deepest, d);
  }
  return deepest;
}

}  // namespace pf::models::collective
