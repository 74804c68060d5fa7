// Internal to io/timeline: what the writer verifies before it creates a file,
// so that bad input from the simulation becomes one clear error on every rank
// instead of a corrupt file or a hang inside a collective HDF5 call.
#pragma once

#include <cstdint>

#include "io/timeline/timeline_content.h"

namespace pf::timeline {

// Partition size, rank ids, table sizes. Throws pf::SimulationError.
void check_content(const TimelineContent& content, int ranks);

// Every row refers to existing table entries, every event and GPU summary is
// for a GPU that this rank simulated (per meta.partition), every event ends
// no earlier than it starts. Throws pf::SimulationError.
void check_rows(const TimelineRows& rows, const TimelineContent& content, int rank);

// A hash of everything in `content`: equal on every rank, or the ranks would
// write different metadata into one file.
std::uint64_t content_digest(const TimelineContent& content);

}  // namespace pf::timeline
