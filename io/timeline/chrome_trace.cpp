#include "io/timeline/chrome_trace.h"

#include <charconv>
#include <cmath>

namespace pf::timeline {

namespace {

constexpr const char* kStreamNames[kStreamCount] = {"compute", "comm", "p2p", "copy"};
constexpr const char* kPhaseNames[kPhaseCount] = {"fwd", "bwd", "opt"};
// Names and strings come from the file: bytes that are not UTF-8 are written
// as U+FFFD instead of making nlohmann::json throw (found by tests/fuzz).
constexpr auto kReplace = nlohmann::json::error_handler_t::replace;

std::vector<std::string> escaped(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  out.reserve(names.size());
  for (const std::string& n : names) out.push_back(nlohmann::json(n).dump(-1, ' ', false, kReplace));
  return out;
}

template <typename T>
void append_number(std::string& s, T value) {
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);  // shortest exact form for doubles
  s.append(buffer, result.ptr);
}

// Nanoseconds as microseconds with three decimals, exactly ("1234.567").
void append_us(std::string& s, std::int64_t ns) {
  if (ns < 0) {
    s.push_back('-');
    ns = -ns;
  }
  append_number(s, ns / 1000);
  const auto frac = static_cast<int>(ns % 1000);
  s.push_back('.');
  s.push_back(static_cast<char>('0' + frac / 100));
  s.push_back(static_cast<char>('0' + frac / 10 % 10));
  s.push_back(static_cast<char>('0' + frac % 10));
}

const std::string& name_or_index(const std::vector<std::string>& table, std::size_t index, std::string& scratch) {
  if (index < table.size()) return table[index];
  scratch = "\"#" + std::to_string(index) + "\"";
  return scratch;
}

}  // namespace

ChromeTraceWriter::ChromeTraceWriter(std::ostream& out, std::uint32_t gpus_per_node,
                                     const std::vector<std::string>& kinds, const std::vector<std::string>& groups,
                                     const nlohmann::json& other_data)
    : out_(out), gpus_per_node_(gpus_per_node == 0 ? 1 : gpus_per_node), kind_json_(escaped(kinds)),
      group_json_(escaped(groups)) {
  out_ << "{\"displayTimeUnit\":\"ns\",\"otherData\":" << other_data.dump(-1, ' ', false, kReplace) << ",\"traceEvents\":[\n";
}

void ChromeTraceWriter::separator() {
  if (!first_) out_ << ",\n";
  first_ = false;
}

void ChromeTraceWriter::metadata(const char* name, std::uint32_t pid, const std::uint32_t* tid,
                                 const nlohmann::json& args) {
  nlohmann::json m = {{"ph", "M"}, {"name", name}, {"pid", pid}, {"args", args}};
  if (tid) m["tid"] = *tid;
  separator();
  out_ << m.dump(-1, ' ', false, kReplace);
}

void ChromeTraceWriter::declare_gpu(std::uint32_t gpu) {
  const std::uint32_t node = gpu / gpus_per_node_;
  if (node >= node_declared_.size()) node_declared_.resize(node + 1, false);
  if (!node_declared_[node]) {
    node_declared_[node] = true;
    metadata("process_name", node, nullptr, {{"name", "node " + std::to_string(node)}});
    metadata("process_sort_index", node, nullptr, {{"sort_index", node}});
  }
  for (std::uint32_t stream = 0; stream < kStreamCount; ++stream) {
    const std::uint32_t tid = gpu * kStreamCount + stream;
    metadata("thread_name", node, &tid, {{"name", "gpu " + std::to_string(gpu) + " " + kStreamNames[stream]}});
    metadata("thread_sort_index", node, &tid, {{"sort_index", tid}});
  }
}

void ChromeTraceWriter::add(const TimelineEvent& e) {
  std::string scratch;
  std::string& s = line_;
  s.clear();
  s += "{\"ph\":\"X\",\"name\":";
  s += name_or_index(kind_json_, e.kind, scratch);
  s += ",\"cat\":\"";
  s += e.stream < kStreamCount ? kStreamNames[e.stream] : "stream";
  s += "\",\"pid\":";
  append_number(s, e.gpu / gpus_per_node_);
  s += ",\"tid\":";
  append_number(s, static_cast<std::uint64_t>(e.gpu) * kStreamCount + e.stream);
  s += ",\"ts\":";
  append_us(s, e.start_ns);
  s += ",\"dur\":";
  append_us(s, e.end_ns - e.start_ns);
  s += ",\"args\":{\"layer\":";
  append_number(s, e.layer);
  s += ",\"microbatch\":";
  append_number(s, e.microbatch);
  s += ",\"phase\":\"";
  s += e.phase < kPhaseCount ? kPhaseNames[e.phase] : "?";
  s += "\",\"bytes\":";
  append_number(s, e.bytes);
  s += ",\"flops\":";
  if (std::isfinite(e.flops))
    append_number(s, e.flops);
  else
    s += "null";  // JSON has no infinity
  s += ",\"group\":";
  s += name_or_index(group_json_, e.group, scratch);
  s += "}}";
  separator();
  out_ << s;
  ++events_;
}

void ChromeTraceWriter::finish() { out_ << "\n]}\n"; }

}  // namespace pf::timeline
