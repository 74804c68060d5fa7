#include "io/simai/simai_reader.h"

#include <charconv>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/error.h"

namespace pf::io {
namespace {

using models::workload::Collective;
using models::workload::GroupKind;
using models::workload::SimaiComm;
using models::workload::SimaiLayer;
using models::workload::SimaiPolicy;
using models::workload::SimaiWorkload;

[[noreturn]] void fail(const std::string& file, int line, const std::string& what, const std::string& expected,
                       const std::string& found) {
  throw ConfigError(file + ":" + std::to_string(line) + ": " + what + ": expected " + expected + ", found " +
                    (found.empty() ? "nothing" : "'" + found + "'"));
}

std::vector<std::string> tokens_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string t; in >> t;) out.push_back(t);
  return out;
}

std::int64_t integer(const std::string& file, int line, const std::string& what, const std::string& token,
                     std::int64_t min) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
  if (ec != std::errc() || end != token.data() + token.size() || v < min)
    fail(file, line, what, "an integer >= " + std::to_string(min), token);
  return v;
}

// Header: the policy, then `key: value` pairs (SimAI's Workload.cc reads the
// same keys; unknown ones are ignored as SimAI does).
void parse_header(const std::string& file, const std::string& text, SimaiWorkload& w) {
  const std::vector<std::string> t = tokens_of(text);
  if (t.empty()) fail(file, 1, "header", "a parallelism policy (HYBRID_TRANSFORMER_FWD_IN_BCKWD, MICRO, ...)", "");
  if (t[0] == "HYBRID_TRANSFORMER_FWD_IN_BCKWD" || t[0] == "HYBRID_TRANSFORMER") w.policy = SimaiPolicy::transformer;
  else if (t[0] == "MICRO") w.policy = SimaiPolicy::micro;
  else fail(file, 1, "parallelism policy", "HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_TRANSFORMER or MICRO", t[0]);
  auto value = [&](std::size_t i) -> std::int64_t {
    if (i + 1 >= t.size()) fail(file, 1, t[i], "a value after it", "");
    return integer(file, 1, t[i], t[i + 1], 0);
  };
  for (std::size_t i = 1; i < t.size(); ++i) {
    const std::string& k = t[i];
    if (k == "model_parallel_NPU_group:") w.tp = static_cast<int>(std::max<std::int64_t>(1, value(i)));
    else if (k == "ep:") w.ep = static_cast<int>(std::max<std::int64_t>(1, value(i)));
    else if (k == "pp:") w.pp = static_cast<int>(std::max<std::int64_t>(1, value(i)));
    else if (k == "vpp:") w.vpp = static_cast<int>(std::max<std::int64_t>(1, value(i)));
    else if (k == "ga:") w.ga = static_cast<int>(std::max<std::int64_t>(1, value(i)));
    else if (k == "all_gpus:") w.all_gpus = static_cast<int>(value(i));
    else if (k == "pp_comm" || k == "pp_comm:") w.pp_comm_bytes = static_cast<std::uint64_t>(value(i));
    else continue;
    ++i;  // skip the value just read
  }
}

// "ALLREDUCE", "ALLGATHER_EP", "REDUCESCATTER_DP_EP", "NONE", ...
SimaiComm comm(const std::string& file, int line, const std::string& field, const std::string& type,
               const std::string& bytes, GroupKind plain_group) {
  SimaiComm c;
  std::string base = type;
  c.group = plain_group;
  if (base.size() > 6 && base.ends_with("_DP_EP")) {
    c.group = GroupKind::edp;
    base.resize(base.size() - 6);
  } else if (base.size() > 3 && base.ends_with("_EP")) {
    c.group = GroupKind::ep;
    base.resize(base.size() - 3);
  }
  if (base == "NONE" || base == "BROADCAST") c.op = Collective::none;  // SimAI ignores BROADCAST too
  else if (base == "ALLREDUCE") c.op = Collective::all_reduce;
  else if (base == "ALLGATHER") c.op = Collective::all_gather;
  else if (base == "REDUCESCATTER") c.op = Collective::reduce_scatter;
  else if (base == "ALLTOALL") c.op = Collective::all_to_all;
  else if (base == "ALLREDUCEALLTOALL") {
    c.op = Collective::all_reduce;
    c.then_all_to_all = true;
  } else {
    fail(file, line, field + " type",
         "NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL, ALLREDUCEALLTOALL or BROADCAST, optionally _EP or _DP_EP",
         type);
  }
  c.bytes = static_cast<std::uint64_t>(integer(file, line, field + " bytes", bytes, 0));
  if (c.op == Collective::none) c.group = GroupKind::none;
  return c;
}

SimaiLayer layer(const std::string& file, int line, const std::string& text) {
  const std::vector<std::string> t = tokens_of(text);
  if (t.size() != 12)
    fail(file, line, "layer line",
         "12 fields (name, dependency, fwd ns, fwd type, fwd bytes, input-grad ns, type, bytes, weight-grad ns, type, "
         "bytes, update ns)",
         std::to_string(t.size()) + " fields");
  SimaiLayer l;
  l.name = t[0];
  l.line = line;
  (void)integer(file, line, "dependency", t[1], -1);
  l.fwd_ns = integer(file, line, "forward compute ns", t[2], 0);
  l.fwd = comm(file, line, "forward comm", t[3], t[4], GroupKind::tp);
  l.input_grad_ns = integer(file, line, "input-gradient compute ns", t[5], 0);
  l.input_grad = comm(file, line, "input-gradient comm", t[6], t[7], GroupKind::tp);
  l.weight_grad_ns = integer(file, line, "weight-gradient compute ns", t[8], 0);
  l.weight_grad = comm(file, line, "weight-gradient comm", t[9], t[10], GroupKind::dp);
  l.update_ns = integer(file, line, "weight-update ns", t[11], 0);
  return l;
}

}  // namespace

SimaiWorkload parse_simai(const std::string& text, const std::string& name) {
  SimaiWorkload w;
  w.file = name;
  std::istringstream in(text);
  std::string header, count_line;
  if (!std::getline(in, header)) fail(name, 1, "header", "a header line", "an empty file");
  parse_header(name, header, w);
  if (!std::getline(in, count_line)) fail(name, 2, "layer count", "the number of layer lines", "");
  const std::vector<std::string> count_tokens = tokens_of(count_line);
  if (count_tokens.size() != 1) fail(name, 2, "layer count", "one integer", count_line);
  const std::int64_t count = integer(name, 2, "layer count", count_tokens[0], 0);
  int line_no = 2;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (tokens_of(line).empty()) continue;
    if (static_cast<std::int64_t>(w.layers.size()) == count)
      fail(name, line_no, "layer lines", std::to_string(count) + " lines as line 2 says", "one more");
    w.layers.push_back(layer(name, line_no, line));
  }
  if (static_cast<std::int64_t>(w.layers.size()) != count)
    fail(name, line_no + 1, "layer lines", std::to_string(count) + " as line 2 says",
         std::to_string(w.layers.size()));
  return w;
}

SimaiWorkload read_simai_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(path + ": cannot read the SimAI workload file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_simai(text.str(), path);
}

}  // namespace pf::io
