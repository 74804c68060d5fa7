// Internal to io/timeline: making sure the disk can hold the timeline before
// HDF5 writes a byte of it.
//
// Why: parallel HDF5 cannot recover from a write that fails midway (a full
// disk, a quota): its ranks' metadata caches disagree afterwards and closing
// the file hangs every rank in mismatched collectives, or crashes (seen with
// HDF5 1.10.8 and Open MPI 4.1's ompio). So the writer bounds the file's size
// from the row counts, checks that the file system is not full, and once the
// file exists reserves the bound for it (at most 90 % of the free space;
// fallocate, keeping the file size), so that HDF5's writes land in blocks the
// file already owns. The unused part is released after the file is closed.
// Where a write fails all the same (no fallocate, a compressed timeline larger
// than 90 % of the free space), the writer abandons the file instead of
// closing it (timeline_writer.cpp) and check_fully_written below catches
// writes MPI-IO lost without saying so.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "io/timeline/timeline_content.h"

namespace pf::timeline {

// An upper bound of timeline.h5's size: every table uncompressed, the
// strings and the report, plus HDF5's object headers, B-trees and chunk
// index (a fixed allowance and a per-chunk one).
std::uint64_t timeline_size_bound(const TimelineContent& content, std::uint64_t event_rows, std::uint64_t link_rows,
                                  std::uint64_t summary_rows, std::uint64_t chunk_rows);

// Bytes the file system holding `dir` has available to this user, or
// UINT64_MAX when it cannot tell.
std::uint64_t available_bytes(const std::filesystem::path& dir);

// What to reserve for a file of at most `bound` bytes: the bound, but at most
// 90 % of what is free (a compressed timeline is often 5-20x smaller than its
// bound; it then still fits, and if it does not the write fails cleanly).
// Throws TimelineOutputError when the file system cannot hold even HDF5's
// metadata (under 1 MiB free).
std::uint64_t reservation_for(const std::filesystem::path& dir, const std::filesystem::path& file, std::uint64_t bound);

// " (the file system holding DIR has 1.2 MB free)", or "" when it has plenty:
// appended to a failed write's message.
std::string free_space_note(const std::filesystem::path& dir);

// Reserves `bytes` of disk for `file` without changing its size. Throws
// TimelineOutputError when the file system refuses for lack of space (ENOSPC,
// EDQUOT, EFBIG); a file system without fallocate is left as it is (the
// free-space check is then the only guard). Returns whether it reserved.
bool reserve_space(const std::filesystem::path& file, std::uint64_t bytes);

// Gives back what reserve_space took beyond the file's end. Best effort.
void release_reserved_space(const std::filesystem::path& file, std::uint64_t bytes);

// Throws TimelineOutputError when the closed file has a hole at its start or
// one of 64 KiB or more inside: bytes HDF5 handed to MPI-IO that never
// reached the disk. Open MPI 4.1's collective buffering (fcoll vulcan) can
// drop a failed write's error on 4 ranks, so that HDF5 closes a file with
// whole chunks missing; this is the check that keeps such a file from being
// published. File systems without SEEK_HOLE report no holes.
void check_fully_written(const std::filesystem::path& file);

}  // namespace pf::timeline
