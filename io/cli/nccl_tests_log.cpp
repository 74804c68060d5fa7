#include "io/cli/nccl_tests_log.h"

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

#include "core/error.h"

namespace pf::cli {
namespace {

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string field;
  std::istringstream in(line);
  if (sep == ' ') {
    while (in >> field) out.push_back(field);
  } else {
    while (std::getline(in, field, sep)) out.push_back(field);
  }
  return out;
}

[[noreturn]] void bad(const std::string& path, int line, const std::string& what) {
  throw ConfigError(path + ":" + std::to_string(line) + ": " + what);
}

double number(const std::string& path, int line, const std::string& text, const char* what) {
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && v >= 0) return v;
  } catch (const std::exception&) {
  }
  bad(path, line, std::string("expected ") + what + " (a number >= 0), found '" + text + "'");
}

void read_csv(std::istream& in, const std::string& path, const std::string& header, NcclTestsTable& t) {
  const std::vector<std::string> names = split(header, ',');
  int size_col = -1, time_col = -1;
  double to_us = 1;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i].rfind("size", 0) == 0 && size_col < 0) size_col = static_cast<int>(i);
    if (names[i] == "time(ns)" && time_col < 0) time_col = static_cast<int>(i), to_us = 1e-3;
    if (names[i] == "time(us)" && time_col < 0) time_col = static_cast<int>(i);
  }
  if (size_col < 0 || time_col < 0)
    bad(path, 1, "expected a header with size(B) and time(ns) or time(us), found '" + header + "'");
  std::string line;
  for (int n = 2; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    const std::vector<std::string> f = split(line, ',');
    if (static_cast<int>(f.size()) <= std::max(size_col, time_col))
      bad(path, n, "expected " + std::to_string(names.size()) + " fields, found " + std::to_string(f.size()));
    t.rows.push_back({static_cast<std::uint64_t>(number(path, n, f[static_cast<std::size_t>(size_col)], "a size")),
                      number(path, n, f[static_cast<std::size_t>(time_col)], "a time") * to_us});
  }
}

void read_log(std::istream& in, const std::string& path, std::string first, NcclTestsTable& t, std::string& op_name) {
  const std::regex start(R"(Collective test starting:\s*(\S+))");
  const std::regex threads(R"(nThread\s+\d+\s+nGpus\s+(\d+))");
  int ranks = 0;
  std::string line = std::move(first);
  for (int n = 1;; ++n) {
    std::smatch m;
    if (std::regex_search(line, m, start)) op_name = m[1];
    if (!line.empty() && line[0] == '#' && std::regex_search(line, m, threads)) {
      const double g = number(path, n, m[1], "the GPUs per thread (nGpus)");
      if (g < 1 || g > 1e6) bad(path, n, "expected nGpus between 1 and 1000000, found " + std::string(m[1]));
      t.gpus_per_thread = static_cast<int>(g);
    }
    if (line.rfind("#  Rank", 0) == 0) ++ranks;
    const std::vector<std::string> f = split(line, ' ');
    // A data row: 13 fields (12 without in-place checks), size and count integers.
    if (!line.empty() && line[0] != '#' && f.size() >= 8 && std::isdigit(static_cast<unsigned char>(f[0][0]))) {
      t.rows.push_back({static_cast<std::uint64_t>(number(path, n, f[0], "a size in bytes")),
                        number(path, n, f[5], "the out-of-place time in us")});
    }
    if (!std::getline(in, line)) break;
  }
  if (t.gpus == 0) t.gpus = ranks;
}

}  // namespace

int parse_gpus_per_thread(const std::string& text) {
  if (text == "all") return -1;
  try {
    std::size_t used = 0;
    const long v = std::stol(text, &used);
    if (used == text.size() && v >= 1 && v <= 1000000) return static_cast<int>(v);
  } catch (const std::exception&) {
  }
  throw ConfigError("--gpus-per-thread: expected a GPU count (1 or more) or all, found '" + text + "'");
}

NcclTestsTable read_nccl_tests(const std::string& path, int gpus, const std::string& op, int gpus_per_thread) {
  std::ifstream in(path);
  if (!in) throw ConfigError("--nccl-tests: cannot read '" + path + "'");
  NcclTestsTable t;
  t.source = path;
  t.gpus = gpus;
  std::string first;
  std::getline(in, first);
  std::string op_name = op;
  if (first.rfind("size", 0) == 0) {
    read_csv(in, path, first, t);
    std::smatch m;
    const std::string file = path.substr(path.find_last_of('/') + 1);
    if (t.gpus == 0 && std::regex_search(file, m, std::regex(R"((\d+)gpu)"))) t.gpus = std::stoi(m[1]);
  } else {
    std::string found;
    read_log(in, path, first, t, found);
    if (op_name.empty()) op_name = found;
  }
  if (!op_name.empty()) {
    const auto parsed = models::collective::parse_op(op_name);
    if (!parsed) throw ConfigError(path + ": expected an nccl-tests operation (all_reduce_perf, ...), found '" + op_name + "'");
    t.op = *parsed;
  }
  if (t.gpus < 2)
    throw ConfigError(path + ": expected the GPU count (one '#  Rank' line per rank, '<N>gpu' in a CSV's name, or --gpus), found " +
                      std::to_string(t.gpus));
  if (t.rows.empty()) throw ConfigError(path + ": expected nccl-tests data rows (size count type ... time algbw busbw), found none");
  if (gpus_per_thread > 0) t.gpus_per_thread = gpus_per_thread;
  if (gpus_per_thread < 0) t.gpus_per_thread = t.gpus;
  if (t.gpus_per_thread > t.gpus)
    throw ConfigError(path + ": expected at most the table's " + std::to_string(t.gpus) + " GPUs per thread, found " +
                      std::to_string(t.gpus_per_thread));
  return t;
}

}  // namespace pf::cli
