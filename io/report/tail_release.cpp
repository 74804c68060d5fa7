#include "io/report/tail_release.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

namespace pf::report {

std::size_t release_pages(const void* begin, const void* end, const void* limit) {
  static const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto round_down = [](std::uintptr_t a) { return a / page * page; };
  const auto round_up = [](std::uintptr_t a) { return (a + page - 1) / page * page; };
  // The page holding `begin` still holds live elements; the one holding
  // `limit` may belong to the next allocation. The rest of the page holding
  // `end` is spare capacity or data dropped by an earlier call: free to go.
  const std::uintptr_t first = round_up(reinterpret_cast<std::uintptr_t>(begin));
  const std::uintptr_t last =
      std::min(round_up(reinterpret_cast<std::uintptr_t>(end)), round_down(reinterpret_cast<std::uintptr_t>(limit)));
  if (last <= first) return 0;
  if (madvise(reinterpret_cast<void*>(first), last - first, MADV_DONTNEED) != 0) return 0;
  return last - first;
}

}  // namespace pf::report
