// Internal to io/timeline: the MPI exchanges the writer needs beyond
// pf::core::Communicator's scalar collectives (an element-wise sum of a count
// vector, a gather of small tables to rank 0). Candidates for core/ if
// another component needs them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

#include "core/communicator.h"
#include "io/timeline/event_layout.h"

namespace pf::timeline {

// Element-wise sum over all ranks, result on every rank.
std::vector<std::uint64_t> sum_over_ranks(const core::Communicator& comm, std::span<const std::uint64_t> values);

// Every rank's bytes concatenated in rank order on rank 0; empty elsewhere.
std::vector<std::byte> gather_bytes_to_root(const core::Communicator& comm, std::span<const std::byte> bytes);

template <typename T>
std::vector<T> gather_to_root(const core::Communicator& comm, std::span<const T> rows) {
  static_assert(std::is_trivially_copyable_v<T>);
  const std::vector<std::byte> bytes = gather_bytes_to_root(comm, std::as_bytes(rows));
  std::vector<T> out(bytes.size() / sizeof(T));
  if (!bytes.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

// Moves packed rows (row_bytes each) so that every rank ends up with its
// share of the file in file order: this rank sends send_counts[d]
// consecutive rows of `local` to rank d, and places the rows from rank s at
// the share-relative runs incoming[s]. One MPI_Alltoallw with derived
// datatypes: rows land in place, with no copy after the exchange.
std::vector<std::byte> exchange_rows(const core::Communicator& comm, const std::byte* local,
                                     std::span<const std::uint64_t> send_counts,
                                     const std::vector<std::vector<RowRun>>& incoming, std::uint64_t share_rows,
                                     std::size_t row_bytes);

}  // namespace pf::timeline
