#include "io/timeline/rank_exchange.h"

#include <climits>

#include "core/error.h"
#include "core/mpi_handle.h"

namespace pf::timeline {

std::vector<std::uint64_t> sum_over_ranks(const core::Communicator& comm, std::span<const std::uint64_t> values) {
  if (values.size() > static_cast<std::size_t>(INT_MAX))
    throw SimulationError("timeline: too many per-GPU counts to reduce in one MPI call");
  std::vector<std::uint64_t> out(values.size(), 0);
  if (!values.empty())
    MPI_Allreduce(values.data(), out.data(), static_cast<int>(values.size()), MPI_UINT64_T, MPI_SUM,
                  comm.handle().comm);
  return out;
}

std::vector<std::byte> gather_bytes_to_root(const core::Communicator& comm, std::span<const std::byte> bytes) {
  // The limit is checked on every rank before the collective, so that no rank
  // is left waiting in MPI_Gatherv if one cannot take part.
  const std::int64_t largest = comm.max(static_cast<std::int64_t>(bytes.size()));
  if (largest * static_cast<std::int64_t>(comm.size()) > INT_MAX)
    throw SimulationError("timeline: per-rank tables exceed the 2 GiB a single MPI gather can carry");
  const int length = static_cast<int>(bytes.size());
  std::vector<int> lengths(static_cast<std::size_t>(comm.size()), 0);
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm.handle().comm);
  std::vector<int> offsets(lengths.size(), 0);
  int total = 0;
  for (std::size_t r = 0; r < lengths.size(); ++r) {
    offsets[r] = total;
    total += lengths[r];
  }
  std::vector<std::byte> out(comm.rank() == 0 ? static_cast<std::size_t>(total) : 0);
  MPI_Gatherv(bytes.data(), length, MPI_BYTE, out.data(), lengths.data(), offsets.data(), MPI_BYTE, 0,
              comm.handle().comm);
  return out;
}

namespace {

// A datatype of `blocks` (share-relative row runs) of `row` elements.
MPI_Datatype row_blocks(const std::vector<RowRun>& blocks, MPI_Datatype row, std::size_t row_bytes) {
  std::vector<int> lengths;
  std::vector<MPI_Aint> displacements;
  for (const RowRun& b : blocks) {
    lengths.push_back(static_cast<int>(b.count));
    displacements.push_back(static_cast<MPI_Aint>(b.first * row_bytes));
  }
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Type_create_hindexed(static_cast<int>(blocks.size()), lengths.data(), displacements.data(), row, &type);
  MPI_Type_commit(&type);
  return type;
}

}  // namespace

std::vector<std::byte> exchange_rows(const core::Communicator& comm, const std::byte* local,
                                     std::span<const std::uint64_t> send_counts,
                                     const std::vector<std::vector<RowRun>>& incoming, std::uint64_t share_rows,
                                     std::size_t row_bytes) {
  const auto ranks = static_cast<std::size_t>(comm.size());
  MPI_Datatype row = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(static_cast<int>(row_bytes), MPI_BYTE, &row);
  MPI_Type_commit(&row);
  std::vector<int> send_n(ranks, 0), recv_n(ranks, 0), zero(ranks, 0);
  std::vector<MPI_Datatype> send_types(ranks, MPI_BYTE), recv_types(ranks, MPI_BYTE);
  std::uint64_t sent = 0;
  for (std::size_t d = 0; d < ranks; ++d) {
    if (send_counts[d] == 0) continue;
    send_types[d] = row_blocks({RowRun{sent, send_counts[d]}}, row, row_bytes);
    send_n[d] = 1;
    sent += send_counts[d];
  }
  for (std::size_t s = 0; s < ranks; ++s) {
    if (incoming[s].empty()) continue;
    recv_types[s] = row_blocks(incoming[s], row, row_bytes);
    recv_n[s] = 1;
  }
  std::vector<std::byte> share(share_rows * row_bytes);
  std::byte nothing{};  // valid buffers for ranks that send or receive no rows
  const int status = MPI_Alltoallw(local ? local : &nothing, send_n.data(), zero.data(), send_types.data(),
                                   share.empty() ? &nothing : share.data(), recv_n.data(), zero.data(),
                                   recv_types.data(), comm.handle().comm);
  for (std::size_t r = 0; r < ranks; ++r) {
    if (send_n[r]) MPI_Type_free(&send_types[r]);
    if (recv_n[r]) MPI_Type_free(&recv_types[r]);
  }
  MPI_Type_free(&row);
  if (status != MPI_SUCCESS) throw SimulationError("timeline: MPI_Alltoallw of /events rows failed");
  return share;
}

}  // namespace pf::timeline
