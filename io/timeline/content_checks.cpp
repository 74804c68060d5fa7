#include "io/timeline/content_checks.h"

#include <cmath>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/error.h"

namespace pf::timeline {

namespace {

[[noreturn]] void fail(const std::string& message) { throw SimulationError("timeline: " + message); }

void check_event(const TimelineEvent& e, std::size_t index, const TimelineContent& c, int rank) {
  const auto where = [&] { return "event " + std::to_string(index) + " (gpu " + std::to_string(e.gpu) + ")"; };
  if (e.gpu >= c.meta.gpus) fail(where() + ": gpu is outside the " + std::to_string(c.meta.gpus) + " GPUs simulated");
  if (c.meta.partition[e.gpu] != static_cast<std::uint32_t>(rank))
    fail(where() + ": recorded on rank " + std::to_string(rank) + " but the partition gives that GPU to rank " +
         std::to_string(c.meta.partition[e.gpu]));
  if (e.stream >= kStreamCount) fail(where() + ": stream " + std::to_string(e.stream) + " is not 0, 1, 2 or 3");
  if (e.phase >= kPhaseCount) fail(where() + ": phase " + std::to_string(e.phase) + " is not 0, 1 or 2");
  if (e.kind >= c.kinds.size())
    fail(where() + ": kind " + std::to_string(e.kind) + " is outside /kinds (" + std::to_string(c.kinds.size()) + ")");
  if (e.group >= c.groups.size())
    fail(where() + ": group " + std::to_string(e.group) + " is outside /groups (" + std::to_string(c.groups.size()) +
         ")");
  if (e.start_ns < 0 || e.end_ns < e.start_ns)
    fail(where() + ": expected 0 <= start_ns <= end_ns, found " + std::to_string(e.start_ns) + ".." +
         std::to_string(e.end_ns));
  if (std::isnan(e.flops)) fail(where() + ": flops is NaN");
}

// FNV-1a, 64-bit (Fowler, Noll, Vo; public-domain parameters).
class Digest {
 public:
  void add(std::string_view bytes) {
    for (const char ch : bytes) {
      hash_ ^= static_cast<unsigned char>(ch);
      hash_ *= 0x100000001b3ULL;
    }
  }
  template <typename T>
  void add_value(const T& value) {
    static_assert(std::is_trivially_copyable_v<T>);
    add(std::string_view(reinterpret_cast<const char*>(&value), sizeof(T)));
  }
  void add_string(const std::string& s) {
    add_value(s.size());
    add(s);
  }
  std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
};

void add_table(Digest& d, const std::vector<std::string>& table) {
  d.add_value(table.size());
  for (const std::string& s : table) d.add_string(s);
}

void add_summary(Digest& d, const std::vector<SummaryAttribute>& summary) {
  d.add_value(summary.size());
  for (const SummaryAttribute& a : summary) {
    d.add_string(a.name);
    d.add_value(a.value.index());
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::string>) {
            d.add_string(v);
          } else if constexpr (std::is_same_v<T, std::vector<double>>) {
            d.add_value(v.size());
            for (const double x : v) d.add_value(x);
          } else {
            d.add_value(v);
          }
        },
        a.value);
  }
}

}  // namespace

void check_content(const TimelineContent& c, int ranks) {
  if (c.meta.gpus == 0) fail("meta.gpus must be at least 1");
  if (c.meta.gpus_per_node == 0) fail("meta.gpus_per_node must be at least 1");
  if (c.meta.partition.size() != c.meta.gpus)
    fail("meta.partition has " + std::to_string(c.meta.partition.size()) + " entries, expected one per GPU (" +
         std::to_string(c.meta.gpus) + ")");
  for (std::size_t g = 0; g < c.meta.partition.size(); ++g)
    if (c.meta.partition[g] >= static_cast<std::uint32_t>(ranks))
      fail("meta.partition gives gpu " + std::to_string(g) + " to rank " + std::to_string(c.meta.partition[g]) +
           ", but there are " + std::to_string(ranks) + " ranks");
  if (c.kinds.size() > 65536) fail("more than 65536 /kinds: TimelineEvent::kind is 16 bits");
  if (c.link_classes.size() > 256) fail("more than 256 /link_classes: LinkRow::link_class is 8 bits");
}

void check_rows(const TimelineRows& rows, const TimelineContent& c, int rank) {
  for (std::size_t i = 0; i < rows.events.size(); ++i) check_event(rows.events[i], i, c, rank);
  for (const LinkRow& l : rows.links) {
    if (l.link_class >= c.link_classes.size())
      fail("link " + std::to_string(l.link) + ": class " + std::to_string(l.link_class) + " is outside /link_classes");
    if (!c.vertices.empty() && (l.src >= c.vertices.size() || l.dst >= c.vertices.size()))
      fail("link " + std::to_string(l.link) + ": src/dst outside /vertices (" + std::to_string(c.vertices.size()) + ")");
  }
  for (const GpuSummaryRow& s : rows.gpu_summary) {
    if (s.gpu >= c.meta.gpus || c.meta.partition[s.gpu] != static_cast<std::uint32_t>(rank))
      fail("gpu_summary row for gpu " + std::to_string(s.gpu) + " on rank " + std::to_string(rank) +
           ", which did not simulate it");
  }
}

std::uint64_t content_digest(const TimelineContent& c) {
  Digest d;
  d.add_string(c.meta.version);
  d.add_value(c.meta.gpus);
  d.add_value(c.meta.gpus_per_node);
  d.add_string(c.meta.timeline_gpus);
  d.add_value(c.meta.partition.size());
  for (const std::uint32_t r : c.meta.partition) d.add_value(r);
  add_table(d, c.kinds);
  add_table(d, c.groups);
  add_table(d, c.link_classes);
  add_table(d, c.vertices);
  add_summary(d, c.summary);
  d.add_string(c.config_yaml);
  return d.value();
}

}  // namespace pf::timeline
