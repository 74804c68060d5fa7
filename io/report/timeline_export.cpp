#include "io/report/timeline_export.h"

#include <optional>

#include <string>
#include <utility>

#include "core/error.h"
#include "io/report/group_table.h"
#include "io/report/tail_release.h"
#include "io/timeline/report_attributes.h"
#include "models/workload/op.h"

namespace pf::report {

namespace {

using models::training::ExecutedOp;
using models::training::GpuTotals;
using models::training::LinkTotals;

// Ops converted per step before their pages are released: 4 MiB of input, so
// the transient overlap between input and output stays small.
constexpr std::size_t kReleaseBlock = std::size_t{1} << 16;

timeline::TimelineEvent to_event(const ExecutedOp& op, const GroupIndex& groups) {
  if (op.end_ps < op.start_ps)
    throw SimulationError("timeline: op of kind " + std::to_string(op.kind) + " on GPU " + std::to_string(op.gpu) +
                          " ends at " + std::to_string(op.end_ps) + " ps, before its start at " +
                          std::to_string(op.start_ps) + " ps");
  timeline::TimelineEvent e;
  e.gpu = op.gpu;
  e.stream = op.stream;
  e.kind = op.kind;
  e.start_ns = ns_from_ps(op.start_ps);
  e.end_ns = ns_from_ps(op.end_ps);
  e.layer = op.layer;
  e.microbatch = op.microbatch;
  e.phase = op.phase;
  e.bytes = op.bytes;
  e.flops = op.flops;
  e.group = groups(models::workload::GroupId::from_raw(op.group));
  return e;
}

// Back to front, block by block, handing each converted block's pages back.
std::vector<timeline::TimelineEvent> events_from(std::vector<ExecutedOp>& ops, const GroupIndex& groups) {
  std::vector<timeline::TimelineEvent> events;
  events.reserve(ops.size());  // untouched reserved pages are not resident until written
  while (!ops.empty()) {
    const std::size_t begin = ops.size() > kReleaseBlock ? ops.size() - kReleaseBlock : 0;
    for (std::size_t i = begin; i < ops.size(); ++i) events.push_back(to_event(ops[i], groups));
    release_tail(ops, begin);
  }
  std::vector<ExecutedOp>().swap(ops);
  return events;
}

std::vector<timeline::GpuSummaryRow> gpu_rows(const std::vector<GpuTotals>& totals, core::SimTime step,
                                              const std::vector<models::GpuFaultFigures>& faults) {
  const std::int64_t step_ns = ns_from_ps(step.ps);
  std::vector<timeline::GpuSummaryRow> rows;
  rows.reserve(totals.size());
  for (const GpuTotals& t : totals) {
    if (t.busy_ps > step.ps)
      throw SimulationError("timeline: GPU " + std::to_string(t.gpu) + " busy for " + std::to_string(t.busy_ps) +
                            " ps, longer than the step of " + std::to_string(step.ps) + " ps");
    timeline::GpuSummaryRow row;
    row.gpu = t.gpu;
    row.busy_ns = ns_from_ps(t.busy_ps);
    row.idle_ns = step_ns - row.busy_ns;  // busy + idle = step exactly, in ns
    row.exposed_comm_ns = ns_from_ps(t.exposed_comm_ps);
    row.peak_memory_bytes = t.peak_memory_bytes;
    if (t.gpu < faults.size()) {
      row.compute_slowdown = faults[t.gpu].compute_slowdown;
      row.jitter_sigma = faults[t.gpu].jitter.sigma;
    }
    rows.push_back(row);
  }
  return rows;
}

std::vector<timeline::LinkRow> link_rows(const std::vector<LinkTotals>& totals, const models::network::ClusterGraph& graph,
                                         const models::network::ClusterGraph* healthy) {
  std::vector<timeline::LinkRow> rows;
  rows.reserve(totals.size());
  for (const LinkTotals& t : totals) {
    if (t.link >= static_cast<std::uint32_t>(graph.link_count()))
      throw SimulationError("timeline: link " + std::to_string(t.link) + " is not in the cluster graph (" +
                            std::to_string(graph.link_count()) + " links)");
    const models::network::Link& link = graph.link(static_cast<models::network::LinkId>(t.link));
    timeline::LinkRow row;
    row.link = t.link;
    row.src = static_cast<std::uint32_t>(link.src);
    row.dst = static_cast<std::uint32_t>(link.dst);
    row.link_class = static_cast<std::uint8_t>(link.cls);
    row.busy_ns = ns_from_ps(t.busy_ps);
    row.bytes = t.bytes;
    row.peak_queue_bytes = t.peak_queue_bytes;
    row.bandwidth_bytes_per_s = link.bandwidth_Bps;
    row.nominal_bandwidth_bytes_per_s =
        healthy ? healthy->link(static_cast<models::network::LinkId>(t.link)).bandwidth_Bps : link.bandwidth_Bps;
    row.failed = link.failed ? 1 : 0;
    rows.push_back(row);
  }
  return rows;
}

}  // namespace

timeline::TimelineRows timeline_rows(models::training::RunResult::Local&& local,
                                     const models::workload::RankLayout& layout, const models::network::ClusterGraph& graph,
                                     core::SimTime step, const models::ExperimentSpec* faults_of) {
  timeline::TimelineRows rows;
  rows.events = events_from(local.ops, GroupIndex(layout));
  const bool faulted = faults_of && !faults_of->faults.empty();
  const std::vector<models::GpuFaultFigures> gpu_faults =
      faulted ? models::gpu_fault_figures(faults_of->faults, faults_of->gpu_count()) : std::vector<models::GpuFaultFigures>{};
  rows.gpu_summary = gpu_rows(local.gpus, step, gpu_faults);
  std::optional<models::network::ClusterGraph> healthy;
  if (faulted) healthy.emplace(models::network::build_cluster(faults_of->hardware.node, faults_of->topology));
  rows.links = link_rows(local.links, graph, healthy ? &*healthy : nullptr);
  local = {};
  return rows;
}

std::vector<std::string> kind_table() {
  std::vector<std::string> kinds;
  kinds.reserve(models::workload::kOpKindCount);
  for (int k = 0; k < models::workload::kOpKindCount; ++k)
    kinds.emplace_back(models::workload::kind_name(static_cast<models::workload::OpKind>(k)));
  return kinds;
}

std::vector<std::string> link_class_table() {
  // LinkClass has no count enumerator: core_to_spine is its last value.
  constexpr int kClasses = static_cast<int>(models::network::LinkClass::core_to_spine) + 1;
  std::vector<std::string> classes;
  for (int c = 0; c < kClasses; ++c) classes.emplace_back(models::network::to_string(static_cast<models::network::LinkClass>(c)));
  return classes;
}

std::vector<std::string> vertex_table(const models::network::ClusterGraph& graph) {
  std::vector<std::string> names;
  names.reserve(static_cast<std::size_t>(graph.vertex_count()));
  for (const models::network::Vertex& v : graph.vertices())
    names.push_back(std::string(models::network::to_string(v.kind)) + std::to_string(v.index));
  return names;
}

timeline::TimelineContent timeline_content(const nlohmann::ordered_json& report, const models::ExperimentSpec& e,
                                           const models::workload::RankLayout& layout,
                                           const models::network::ClusterGraph& graph, const partition::RankMapping& mapping,
                                           const timeline::GpuSelection& selection) {
  timeline::TimelineContent c;
  c.meta.version = report.at("version").get<std::string>();
  c.meta.gpus = static_cast<std::uint32_t>(graph.gpu_count());
  c.meta.gpus_per_node = static_cast<std::uint32_t>(graph.shape().gpus_per_node);
  c.meta.timeline_gpus = selection.description();
  c.meta.partition.reserve(c.meta.gpus);
  // GPU g is vertex g (topology.h).
  for (int g = 0; g < graph.gpu_count(); ++g) c.meta.partition.push_back(static_cast<std::uint32_t>(mapping.rank_of(g)));
  c.kinds = kind_table();
  c.groups = group_table(layout);
  c.link_classes = link_class_table();
  c.vertices = vertex_table(graph);
  // summary_attributes takes the key-sorted json; keep the verbatim copy in
  // the report's key order (the flattened attributes are named, so their order is moot).
  c.summary = timeline::summary_attributes(nlohmann::json(report));
  for (auto& attribute : c.summary)
    if (attribute.name == "report_json") attribute.value = report.dump();
  c.config_yaml = e.merged_yaml;
  return c;
}

}  // namespace pf::report
