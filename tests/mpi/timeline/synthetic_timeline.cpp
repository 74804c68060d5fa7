#include "tests/mpi/timeline/synthetic_timeline.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <random>

#include "io/config/output_parser.h"
#include "io/timeline/gpu_selection.h"
#include "io/timeline/report_attributes.h"

namespace pf::timeline::testing {

namespace {

enum Kind : std::uint16_t { gemm, attention, allreduce, reduce_scatter, send_recv, optimizer };
const std::vector<std::string> kKinds = {"gemm", "attention", "all_reduce", "reduce_scatter", "send_recv",
                                         "optimizer_step"};

// splitmix64 (Steele, Lea, Flood 2014): a tiny, well-mixed generator per GPU.
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::int64_t between(std::int64_t lo, std::int64_t hi) { return lo + static_cast<std::int64_t>(next() % (hi - lo)); }
};

// Group table: "-", then tp<node>, dp<stage>, pp<pipeline>.
std::uint32_t tp_group(const SyntheticShape& s, std::uint32_t gpu) { return 1 + gpu / s.gpus_per_node; }
std::uint32_t dp_group(const SyntheticShape& s, std::uint32_t gpu) {
  return 1 + s.gpus / s.gpus_per_node + gpu % s.stages;
}
std::uint32_t pp_group(const SyntheticShape& s, std::uint32_t gpu) {
  return 1 + s.gpus / s.gpus_per_node + s.stages + gpu / s.stages;
}

TimelineEvent make(std::uint32_t gpu, Stream stream, Kind kind, std::int64_t start, std::int64_t duration,
                   std::int32_t layer, std::int32_t microbatch, Phase phase, std::uint32_t group) {
  TimelineEvent e;
  e.gpu = gpu;
  e.stream = static_cast<std::uint8_t>(stream);
  e.kind = kind;
  e.start_ns = start;
  e.end_ns = start + duration;
  e.layer = layer;
  e.microbatch = microbatch;
  e.phase = static_cast<std::uint8_t>(phase);
  e.bytes = static_cast<std::uint64_t>(duration) * 4096;
  e.flops = stream == Stream::compute ? static_cast<double>(duration) * 3.1e5 : 0.0;
  e.group = group;
  return e;
}

// One micro-batch of one phase: per layer a compute kernel and its TP
// all-reduce, which starts exactly when the kernel ends (a tie with the next
// kernel when compute does not wait for it).
std::int64_t run_microbatch(const SyntheticShape& s, std::uint32_t gpu, Phase phase, std::int32_t mb, std::int64_t t,
                            Rng& rng, std::vector<TimelineEvent>& out) {
  const std::uint32_t stage = gpu % s.stages;
  for (std::uint32_t l = 0; l < s.layers; ++l) {
    const std::uint32_t local = phase == Phase::fwd ? l : s.layers - 1 - l;
    const auto layer = static_cast<std::int32_t>(stage * s.layers + local);
    const std::int64_t work = rng.between(800, 1200) * (phase == Phase::bwd ? 2 : 1);
    out.push_back(make(gpu, Stream::compute, l % 2 ? attention : gemm, t, work, layer, mb, phase, tp_group(s, gpu)));
    const std::int64_t comm = rng.between(150, 400);
    out.push_back(make(gpu, Stream::comm, allreduce, t + work, comm, layer, mb, phase, tp_group(s, gpu)));
    t += work + (rng.next() % 3 == 0 ? comm : 0);  // a third of the all-reduces are exposed
    if (phase == Phase::bwd && local == 0)          // gradients of the stage's first layer are ready
      out.push_back(make(gpu, Stream::comm, reduce_scatter, t, rng.between(500, 900), -1, mb, phase, dp_group(s, gpu)));
  }
  out.push_back(make(gpu, Stream::p2p, send_recv, t, rng.between(200, 300), -1, mb, phase, pp_group(s, gpu)));
  return t;
}

}  // namespace

std::vector<std::uint32_t> scattered_partition(const SyntheticShape& shape, int ranks) {
  std::vector<std::uint32_t> owner(shape.gpus, 0);
  const auto k = static_cast<std::uint32_t>(ranks >= 3 ? ranks - 1 : ranks);
  for (std::uint32_t g = 0; g < shape.gpus; ++g)
    owner[g] = ranks >= 3 && !is_selected(shape, g) ? static_cast<std::uint32_t>(ranks - 1) : (g % k + g / k) % k;
  return owner;
}

bool is_selected(const SyntheticShape& shape, std::uint32_t gpu) {
  if (shape.timeline_gpus == "all") return gpu < shape.gpus;
  const auto ranges = config::parse_gpu_range_list(shape.timeline_gpus);  // O(ranges), not O(gpus), per call
  if (!ranges) return select_timeline_gpus(shape.timeline_gpus, shape.gpus, {}).contains(gpu);  // throws
  for (const config::GpuRange& r : *ranges)
    if (static_cast<int>(gpu) >= r.first && static_cast<int>(gpu) <= r.last) return gpu < shape.gpus;
  return false;
}

std::vector<TimelineEvent> synthetic_gpu_events(const SyntheticShape& s, std::uint32_t gpu) {
  std::vector<TimelineEvent> out;
  if (!is_selected(s, gpu) || gpu == s.empty_gpu) return out;
  Rng rng{gpu + 1};
  const auto microbatches = static_cast<std::int32_t>(s.microbatches + gpu % 3);
  std::int64_t t = static_cast<std::int64_t>(gpu % s.stages) * 2000;  // pipeline warm-up bubble
  for (const Phase phase : {Phase::fwd, Phase::bwd})
    for (std::int32_t mb = 0; mb < microbatches; ++mb) t = run_microbatch(s, gpu, phase, mb, t, rng, out);
  out.push_back(make(gpu, Stream::compute, optimizer, t, 3000, -1, -1, Phase::opt, 0));
  return out;
}

std::vector<LinkRow> synthetic_links(const SyntheticShape& s) {
  const std::uint32_t vertices = s.gpus + 3;
  std::vector<LinkRow> links;
  for (std::uint32_t l = 0; l < s.gpus * 3 / 2; ++l) {
    LinkRow r;
    r.link = 2 * l + 1;  // ids need not be dense
    r.src = l % vertices;
    r.dst = (7 * l + 1) % vertices;
    r.link_class = static_cast<std::uint8_t>(l % 3);
    r.busy_ns = 1000 * (l + 1);
    r.bytes = static_cast<std::uint64_t>(l) * 1000000;
    r.peak_queue_bytes = static_cast<std::uint64_t>(l) * 4096;
    r.bandwidth_bytes_per_s = 450e9 / (1 + r.link_class);
    links.push_back(r);
  }
  return links;
}

int link_owner(const LinkRow& link, int ranks) { return static_cast<int>((link.link * 5 + 3) % static_cast<std::uint32_t>(ranks)); }

GpuSummaryRow synthetic_gpu_summary(const SyntheticShape& s, std::uint32_t gpu) {
  GpuSummaryRow row;
  row.gpu = gpu;
  std::int64_t end = 0;
  for (const TimelineEvent& e : synthetic_gpu_events(s, gpu)) {
    if (e.stream == 0) row.busy_ns += e.end_ns - e.start_ns;
    if (e.stream != 0) row.exposed_comm_ns += (e.end_ns - e.start_ns) / 3;
    end = std::max(end, e.end_ns);
  }
  if (end == 0) {  // not in the timeline selection: made-up totals
    row.busy_ns = 50000 + gpu;
    end = 80000;
    row.exposed_comm_ns = 1000;
  }
  row.idle_ns = end - row.busy_ns;
  row.peak_memory_bytes = (std::uint64_t{gpu} + 1) << 30;
  return row;
}

TimelineContent synthetic_content(const SyntheticShape& s, int ranks) {
  TimelineContent c;
  c.meta.version = "test";
  c.meta.gpus = s.gpus;
  c.meta.gpus_per_node = s.gpus_per_node;
  c.meta.timeline_gpus = s.timeline_gpus;
  c.meta.partition = scattered_partition(s, ranks);
  c.kinds = kKinds;
  c.groups = {"-"};
  for (std::uint32_t n = 0; n < s.gpus / s.gpus_per_node; ++n) c.groups.push_back("tp" + std::to_string(n));
  for (std::uint32_t st = 0; st < s.stages; ++st) c.groups.push_back("dp" + std::to_string(st));
  for (std::uint32_t p = 0; p < s.gpus / s.stages; ++p) c.groups.push_back("pp" + std::to_string(p));
  c.link_classes = {"nvlink", "nic", "leaf_spine"};
  for (std::uint32_t g = 0; g < s.gpus; ++g) c.vertices.push_back("gpu" + std::to_string(g));
  c.vertices.insert(c.vertices.end(), {"leaf0", "leaf1", "spine0"});
  std::int64_t step_ns = 0;
  for (std::uint32_t g = 0; g < s.gpus; ++g)
    step_ns = std::max(step_ns, synthetic_gpu_summary(s, g).busy_ns + synthetic_gpu_summary(s, g).idle_ns);
  const nlohmann::json report = {
      {"step_time_ms", static_cast<double>(step_ns) / 1e6},
      {"mfu", 0.42},
      {"memory", {{"parameters_gb", 1.5}, {"activations_gb", 2.25}}},
      {"pp_stage_memory_gb", std::vector<double>(s.stages, 4.5)},
      {"oom", nullptr},
      {"simulation", {{"ranks", ranks}, {"events", 1234567}}},
      {"bottlenecks", {{"top_ops_by_time", {{{"op", "gemm"}, {"ms", 0.5}}}}}},
      {"version", "test"}};
  c.summary = summary_attributes(report);
  c.config_yaml = "name: synthetic\nparallelism:\n  pp: " + std::to_string(s.stages) + "\noutput:\n  timeline_gpus: \"" +
                  s.timeline_gpus + "\"\n";
  return c;
}

TimelineRows synthetic_rows(const SyntheticShape& s, const TimelineContent& c, int rank, int ranks) {
  TimelineRows rows;
  for (std::uint32_t g = 0; g < s.gpus; ++g) {
    if (c.meta.partition[g] != static_cast<std::uint32_t>(rank)) continue;
    const std::vector<TimelineEvent> events = synthetic_gpu_events(s, g);
    rows.events.insert(rows.events.end(), events.begin(), events.end());
    rows.gpu_summary.push_back(synthetic_gpu_summary(s, g));
  }
  // The writer must not depend on the order events were recorded in.
  std::mt19937 shuffle(static_cast<std::uint32_t>(rank) + 17);
  std::shuffle(rows.events.begin(), rows.events.end(), shuffle);
  for (const LinkRow& link : synthetic_links(s))
    if (link_owner(link, ranks) == rank) rows.links.push_back(link);
  return rows;
}

}  // namespace pf::timeline::testing
