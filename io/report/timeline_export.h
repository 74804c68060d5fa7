// From a simulated run to the timeline writer's input (io/timeline): this
// rank's recorded rows become /events, /gpu_summary and /links rows, and the
// tables, report, configuration and metadata become the TimelineContent every
// rank passes identically.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "core/sim_time.h"
#include "io/timeline/gpu_selection.h"
#include "io/timeline/timeline_content.h"
#include "models/spec/experiment_spec.h"
#include "models/training/run_result.h"
#include "models/workload/rank_layout.h"
#include "models/network/topology.h"
#include "models/network/lp_partition.h"

namespace pf::report {

// Picoseconds to the timeline's nanoseconds, rounded to nearest (halves up).
// Monotone, so start_ps <= end_ps gives start_ns <= end_ns.
constexpr std::int64_t ns_from_ps(std::int64_t ps) {
  const std::int64_t shifted = ps + 500;
  // Floor division, so that negative times round the same way.
  return shifted >= 0 ? shifted / 1000 : -((-shifted + 999) / 1000);
}

// Consumes `local`: ops are converted back to front and the pages they held
// are handed back as the conversion goes (tail_release.h), so a 10-million-row
// local timeline never exists twice. Events come out in no particular order
// (the writer sorts them). ExecutedOp::group (a raw GroupId) becomes a
// group_table() index; ExecutedOp::kind (an OpKind) already indexes the kinds
// table. GPU idle time is `step` minus busy time; links get their ends, class
// and bandwidth from `graph`. Throws pf::SimulationError for an op ending
// before it starts, a GPU busy longer than the step, a group the layout does
// not have or a link the graph does not have.
//
// Faults: `graph` is the faulted cluster; `faults` (the experiment's) give each
// /gpu_summary row its compute slowdown and jitter, and each /links row its
// nominal bandwidth (the cluster built without faults) and failed flag.
timeline::TimelineRows timeline_rows(models::training::RunResult::Local&& local,
                                     const models::workload::RankLayout& layout, const models::network::ClusterGraph& graph,
                                     core::SimTime step, const models::ExperimentSpec* faults_of = nullptr);

// /kinds: every workload OpKind's name, indexed by its value.
std::vector<std::string> kind_table();
// /link_classes: models::network::LinkClass names, indexed by value.
std::vector<std::string> link_class_table();
// /vertices: "gpu0", "nvswitch0", "nic3", "leaf1", "spine0", "core2": one per
// graph vertex, indexed by VertexId.
std::vector<std::string> vertex_table(const models::network::ClusterGraph& graph);

// Identical on every rank. meta.version is the report's "version"; the
// partition column is the MPI rank of each GPU's vertex; summary is the report
// as /summary attributes, with report_json holding it in the report's key order.
timeline::TimelineContent timeline_content(const nlohmann::ordered_json& report, const models::ExperimentSpec& e,
                                           const models::workload::RankLayout& layout,
                                           const models::network::ClusterGraph& graph, const partition::RankMapping& mapping,
                                           const timeline::GpuSelection& selection);

}  // namespace pf::report
