// RunResult::Local -> timeline rows, and the timeline's tables and metadata.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/error.h"
#include "io/report/group_table.h"
#include "io/report/report_json.h"
#include "io/report/timeline_export.h"
#include "models/workload/op.h"
#include "sample_run.h"

namespace pf::report {
namespace {

using models::training::ExecutedOp;
using models::training::RunResult;
using models::workload::GroupId;
using models::workload::GroupKind;
using models::workload::OpKind;

models::ParallelismSpec par222() {
  models::ParallelismSpec p;
  p.tp = 2;
  p.pp = 2;
  p.dp = 2;
  return p;
}

// Two 4-GPU servers on one switch: 8 GPUs, as many as tp 2 x pp 2 x dp 2.
models::network::ClusterGraph small_graph() {
  models::NodeSpec node;
  node.gpus_per_node = 4;
  node.nics_per_node = 4;
  node.nvlink_bandwidth_gbps = 300;
  node.nvlink_latency_us = 0.7;
  node.nic_bandwidth_gbps = 200;
  node.nic_latency_us = 2.0;
  node.pcie_bandwidth_gbps = 32;
  models::TopologySpec topo;
  topo.nodes = 2;
  return models::network::build_cluster(node, topo);
}

ExecutedOp op(std::uint32_t gpu, std::int64_t start_ps, std::int64_t end_ps, std::uint32_t group = 0) {
  ExecutedOp o;
  o.gpu = gpu;
  o.kind = static_cast<std::uint16_t>(OpKind::tp_all_reduce);
  o.stream = 1;
  o.start_ps = start_ps;
  o.end_ps = end_ps;
  o.layer = 7;
  o.microbatch = 3;
  o.phase = 1;
  o.bytes = 1 << 20;
  o.flops = 2.5e9;
  o.group = group;
  return o;
}

TEST(TimelineExport, PicosecondsRoundToNearestNanosecond) {
  EXPECT_EQ(ns_from_ps(0), 0);
  EXPECT_EQ(ns_from_ps(499), 0);
  EXPECT_EQ(ns_from_ps(500), 1);  // halves up
  EXPECT_EQ(ns_from_ps(1499), 1);
  EXPECT_EQ(ns_from_ps(1500), 2);
  EXPECT_EQ(ns_from_ps(123456789012345), 123456789012);
  EXPECT_EQ(ns_from_ps(-500), 0);
  EXPECT_EQ(ns_from_ps(-501), -1);
  EXPECT_EQ(ns_from_ps(-1500), -1);
}

// Rounding is monotone, so no op comes out ending before it starts.
TEST(TimelineExport, RoundingKeepsStartNotAfterEnd) {
  for (std::int64_t start = -3000; start <= 3000; ++start)
    for (std::int64_t end = start; end <= start + 1001; ++end)
      ASSERT_LE(ns_from_ps(start), ns_from_ps(end)) << start << " " << end;
}

TEST(TimelineExport, RowsCarryEveryFieldConverted) {
  const auto graph = small_graph();
  const models::workload::RankLayout layout(par222());
  const GroupId tp1{GroupKind::tp, 1};
  RunResult::Local local;
  local.ops = {op(2, 1499, 1500, tp1.raw()), op(3, 1500, 1500), op(2, 0, 2'000'000'499)};
  local.gpus = {{2, 700'000'400, 5'000'000, 9'000'000, 0, 1'000'000'000, 123456789},
                {3, 1'000'000'000, 0, 0, 0, 1'000'000'000, 42}};
  local.links = {{5, 400'000, 1000, 64}, {0, 1'600, 2000, 0}};
  const core::SimTime step = core::SimTime::from_ps(1'000'000'000);
  auto rows = timeline_rows(std::move(local), layout, graph, step);
  EXPECT_TRUE(local.ops.empty());
  EXPECT_TRUE(local.gpus.empty());

  ASSERT_EQ(rows.events.size(), 3u);
  std::sort(rows.events.begin(), rows.events.end(),
            [](const auto& a, const auto& b) { return a.gpu != b.gpu ? a.gpu < b.gpu : a.end_ns < b.end_ns; });
  const auto& e = rows.events[0];
  EXPECT_EQ(e.gpu, 2u);
  EXPECT_EQ(e.start_ns, 1);  // 1499 ps
  EXPECT_EQ(e.end_ns, 2);    // 1500 ps
  EXPECT_EQ(e.kind, static_cast<std::uint16_t>(OpKind::tp_all_reduce));
  EXPECT_EQ(e.stream, 1);
  EXPECT_EQ(e.layer, 7);
  EXPECT_EQ(e.microbatch, 3);
  EXPECT_EQ(e.phase, 1);
  EXPECT_EQ(e.bytes, 1u << 20);
  EXPECT_EQ(e.flops, 2.5e9);
  EXPECT_EQ(e.group, group_index(tp1, layout));
  EXPECT_EQ(group_table(layout)[e.group], "tp[1]");
  EXPECT_EQ(rows.events[1].end_ns, 2'000'000);  // 2,000,000,499 ps
  EXPECT_EQ(rows.events[2].group, 0u);           // none
  for (const auto& ev : rows.events) EXPECT_LE(ev.start_ns, ev.end_ns);

  ASSERT_EQ(rows.gpu_summary.size(), 2u);
  EXPECT_EQ(rows.gpu_summary[0].busy_ns, 700'000);
  EXPECT_EQ(rows.gpu_summary[0].idle_ns, 1'000'000 - 700'000);  // step - busy
  EXPECT_EQ(rows.gpu_summary[0].exposed_comm_ns, 5'000);
  EXPECT_EQ(rows.gpu_summary[0].peak_memory_bytes, 123456789u);
  EXPECT_EQ(rows.gpu_summary[1].idle_ns, 0);

  ASSERT_EQ(rows.links.size(), 2u);
  for (const auto& row : rows.links) {
    const auto& link = graph.link(static_cast<models::network::LinkId>(row.link));
    EXPECT_EQ(row.src, static_cast<std::uint32_t>(link.src));
    EXPECT_EQ(row.dst, static_cast<std::uint32_t>(link.dst));
    EXPECT_EQ(row.link_class, static_cast<std::uint8_t>(link.cls));
    EXPECT_EQ(row.bandwidth_bytes_per_s, link.bandwidth_Bps);
  }
  EXPECT_EQ(rows.links[0].busy_ns, 400);
  EXPECT_EQ(rows.links[0].peak_queue_bytes, 64u);
  EXPECT_EQ(rows.links[1].busy_ns, 2);  // 1600 ps
}

TEST(TimelineExport, InconsistentInputIsAnError) {
  const auto graph = small_graph();
  const models::workload::RankLayout layout(par222());
  const auto step = core::SimTime::from_ps(1000);
  auto run = [&](RunResult::Local local) { return timeline_rows(std::move(local), layout, graph, step); };
  RunResult::Local backwards;
  backwards.ops = {op(0, 2000, 1999)};
  EXPECT_THROW(run(backwards), SimulationError);
  RunResult::Local bad_group;
  bad_group.ops = {op(0, 0, 1, GroupId{GroupKind::tp, 4}.raw())};  // tp[0..3] only
  EXPECT_THROW(run(bad_group), SimulationError);
  RunResult::Local too_busy;
  too_busy.gpus = {{0, 1001, 0, 0, 0, 1001, 0}};
  EXPECT_THROW(run(too_busy), SimulationError);
  RunResult::Local bad_link;
  bad_link.links = {{static_cast<std::uint32_t>(graph.link_count()), 0, 0, 0}};
  EXPECT_THROW(run(bad_link), SimulationError);
}

TEST(TimelineExport, ContentTablesAndMeta) {
  const auto graph = small_graph();
  const models::workload::RankLayout layout(par222());
  const auto mapping = models::network::partition_cluster(graph, 2, partition::Strategy::block);
  const auto e = test::sample_experiment();
  const auto report = report_json(test::sample_run(), e, "0.1.0", "feed");
  const timeline::GpuSelection selection(std::vector<bool>(8, true), "all");
  const auto c = timeline_content(report, e, layout, graph, mapping, selection);

  ASSERT_EQ(c.kinds.size(), static_cast<std::size_t>(models::workload::kOpKindCount));
  for (int k = 0; k < models::workload::kOpKindCount; ++k)
    EXPECT_EQ(c.kinds[static_cast<std::size_t>(k)], models::workload::kind_name(static_cast<OpKind>(k)));
  EXPECT_EQ(c.kinds[static_cast<std::size_t>(OpKind::pp_recv)], "pp_recv");
  EXPECT_EQ(c.groups, group_table(layout));
  ASSERT_EQ(c.link_classes.size(), 10u);
  EXPECT_EQ(c.link_classes[static_cast<std::size_t>(models::network::LinkClass::nic_to_leaf)], "nic_to_leaf");
  ASSERT_EQ(c.vertices.size(), static_cast<std::size_t>(graph.vertex_count()));
  EXPECT_EQ(c.vertices[0], "gpu0");
  EXPECT_EQ(c.vertices[7], "gpu7");
  EXPECT_EQ(c.vertices[8], "nvswitch0");  // NVSwitches follow the GPUs
  EXPECT_EQ(c.vertices.back(), "leaf0");  // one switch: a single leaf, last

  EXPECT_EQ(c.meta.version, "0.1.0");
  EXPECT_EQ(c.meta.gpus, 8u);
  EXPECT_EQ(c.meta.gpus_per_node, 4u);
  EXPECT_EQ(c.meta.timeline_gpus, "all");
  ASSERT_EQ(c.meta.partition.size(), 8u);
  for (int g = 0; g < 8; ++g) EXPECT_EQ(c.meta.partition[static_cast<std::size_t>(g)], static_cast<std::uint32_t>(mapping.rank_of(g)));
  EXPECT_EQ(c.config_yaml, e.merged_yaml);

  auto attribute = [&](const std::string& name) -> const timeline::SummaryValue* {
    for (const auto& a : c.summary)
      if (a.name == name) return &a.value;
    return nullptr;
  };
  ASSERT_NE(attribute("report_json"), nullptr);
  EXPECT_EQ(std::get<std::string>(*attribute("report_json")), report.dump());  // report key order (io/report/README.md) kept
  ASSERT_NE(attribute("step_time_ms"), nullptr);
  EXPECT_EQ(std::get<double>(*attribute("step_time_ms")), 1500.0);
  ASSERT_NE(attribute("memory.parameters_gb"), nullptr);
  EXPECT_EQ(std::get<std::string>(*attribute("oom")), "null");
}

}  // namespace
}  // namespace pf::report
