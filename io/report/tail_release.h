// Handing the memory of a vector's consumed tail back to the operating system
// without reallocating: a 10-million-row vector converted into another row
// type, back to front, must not exist twice. std::vector can only shrink by
// copying (shrink_to_fit), so instead the whole pages past the kept elements
// are discarded with madvise(MADV_DONTNEED): they stay mapped and owned by the
// vector (reading back as zeros if ever touched again), but no longer count
// towards the process's resident memory.
#pragma once

#include <cstddef>
#include <type_traits>
#include <vector>

namespace pf::report {

// Discards the pages that lie wholly or partly in [begin, end) and wholly in
// [begin's page, limit): `begin` is where live data stops (its page is kept
// when shared), `end` where the dropped data stopped, `limit` where the
// allocation stops (a page it shares with the next allocation is kept).
// Returns the bytes given back (0 where the OS refuses: advice only, the
// memory then just stays resident).
std::size_t release_pages(const void* begin, const void* end, const void* limit);

// Shrinks `v` to its first `keep` elements and gives back the pages that held
// the removed ones. Called repeatedly with a falling `keep`, it frees a vector
// back to front as it is consumed. Only for types whose bytes nobody reads
// after destruction.
template <class T>
std::size_t release_tail(std::vector<T>& v, std::size_t keep) {
  static_assert(std::is_trivially_destructible_v<T> && std::is_trivially_copyable_v<T>);
  if (keep >= v.size()) return 0;
  const T* data = v.data();
  const std::size_t size = v.size();
  v.resize(keep);
  return release_pages(data + keep, data + size, data + v.capacity());
}

}  // namespace pf::report
