#include "models/compute/calibration_table.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "models/compute/csv_fields.h"

namespace pf::models {
namespace {

// The header rows this reader understands (CALIBRATION.md), one per kind.
struct Layout {
  KernelTableKind kind;
  std::vector<std::string_view> columns;
};

const std::array<Layout, 3>& layouts() {
  static const std::array<Layout, 3> all = {{
      {KernelTableKind::gemm, {"M", "N", "K", "t_measured_ms"}},
      {KernelTableKind::attention, {"bs", "seq", "nh", "nkv", "hd", "t_measured_ms"}},
      {KernelTableKind::rmsnorm, {"seq", "dim", "t_measured_ms"}},
  }};
  return all;
}

std::string joined(const std::vector<std::string_view>& fields) {
  std::string s;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) s += ',';
    s.append(fields[i]);
  }
  return s;
}

bool same_name(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](char x, char y) { return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y)); });
}

const Layout& match_header(const std::vector<std::string_view>& fields, const CsvPosition& at) {
  for (const Layout& layout : layouts()) {
    if (fields.size() == layout.columns.size() &&
        std::equal(fields.begin(), fields.end(), layout.columns.begin(), same_name)) {
      return layout;
    }
  }
  std::string expected = "a header row, one of";
  for (const Layout& layout : layouts()) expected += " '" + joined(layout.columns) + "'";
  throw ConfigError(*at.file + ":" + std::to_string(at.line) + ": expected " + expected + ", found '" +
                    joined(fields) + "'");
}

Dtype dtype_from_name(const std::string& path, Dtype fallback) {
  std::string stem = std::filesystem::path(path).stem().string();
  std::transform(stem.begin(), stem.end(), stem.begin(), [](unsigned char c) { return std::tolower(c); });
  static const std::array<std::pair<std::string_view, Dtype>, 5> names = {{
      {"bf16", Dtype::bf16}, {"fp16", Dtype::fp16}, {"fp8", Dtype::fp8}, {"tf32", Dtype::tf32}, {"fp32", Dtype::fp32}}};
  std::size_t start = 0;
  while (start <= stem.size()) {
    const auto end = std::min(stem.find_first_of("_-.", start), stem.size());
    const std::string_view token(stem.data() + start, end - start);
    for (const auto& [name, dtype] : names) {
      if (token == name) return dtype;
    }
    start = end + 1;
  }
  return fallback;
}

// The op a data row measured; dims are the row's integer columns in order.
ComputeOp row_op(KernelTableKind kind, const std::array<std::int64_t, 5>& v, Dtype dtype, const CsvPosition& at,
                 const std::vector<std::string_view>& fields) {
  switch (kind) {
    case KernelTableKind::gemm: return gemm_op({v[0], v[1], v[2]}, dtype);
    case KernelTableKind::attention:
      if (v[2] % v[3] != 0) {
        throw_csv_error(at, 4, "nkv", "a divisor of nh (" + std::to_string(v[2]) + ")", fields[3]);
      }
      return attention_op({v[0], v[1], v[1], v[2], v[3], v[4], false}, dtype);
    case KernelTableKind::rmsnorm: return norm_op({v[0], v[1], NormKind::rmsnorm}, dtype);
  }
  return {};
}

void read_row(const Layout& layout, const std::vector<std::string_view>& fields, const CsvPosition& at,
              CalibrationTable& table) {
  const auto n = layout.columns.size();
  if (fields.size() != n) {
    throw ConfigError(*at.file + ":" + std::to_string(at.line) + ": expected " + std::to_string(n) + " fields (" +
                      joined(layout.columns) + "), found " + std::to_string(fields.size()));
  }
  std::array<std::int64_t, 5> dims{};
  for (std::size_t c = 0; c + 1 < n; ++c) {
    dims[c] = parse_positive_int(fields[c], at, static_cast<int>(c + 1), layout.columns[c]);
  }
  const int time_column = static_cast<int>(n);
  const double ms = parse_number(fields[n - 1], at, time_column, layout.columns[n - 1]);
  if (ms == -1.0) {  // the profiler's marker for a shape it could not run
    ++table.unmeasured_rows;
    return;
  }
  if (!(ms > 0)) {
    throw_csv_error(at, time_column, layout.columns[n - 1], "a positive time in ms (or -1: not measured)",
                    fields[n - 1]);
  }
  table.rows.push_back({row_op(layout.kind, dims, table.dtype, at, fields), ms * 1e-3, at.line});
}

}  // namespace

const char* to_string(KernelTableKind kind) {
  switch (kind) {
    case KernelTableKind::gemm: return "gemm";
    case KernelTableKind::attention: return "attention";
    case KernelTableKind::rmsnorm: return "rmsnorm";
  }
  return "?";
}

CalibrationTable read_calibration_csv(const std::string& path, Dtype unnamed_dtype) {
  std::ifstream in(path);
  if (!in) throw ConfigError("calibration file '" + path + "': expected a readable CSV file, found none");
  CalibrationTable table;
  table.source = path;
  table.dtype = dtype_from_name(path, unnamed_dtype);
  const Layout* layout = nullptr;
  std::string line;
  CsvPosition at{&table.source, 0};
  while (std::getline(in, line)) {
    ++at.line;
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;  // blank lines and comments
    const auto fields = split_csv_line(line);
    if (!layout) {
      layout = &match_header(fields, at);
      table.kind = layout->kind;
      continue;
    }
    read_row(*layout, fields, at, table);
  }
  if (!layout) throw ConfigError(path + ": expected a header row, found an empty file");
  if (table.rows.empty()) throw ConfigError(path + ": expected at least one measured row, found none");
  return table;
}

std::vector<CalibrationTable> load_calibration(const std::string& path, Dtype unnamed_dtype) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return {read_calibration_csv(path, unnamed_dtype)};
  if (!fs::is_directory(path, ec)) {
    throw ConfigError("calibration '" + path + "': expected a CSV file or a directory of them, found nothing there");
  }
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".csv") files.push_back(entry.path().string());
  }
  if (files.empty()) throw ConfigError("calibration directory '" + path + "': expected *.csv files, found none");
  std::sort(files.begin(), files.end());
  std::vector<CalibrationTable> tables;
  for (const auto& file : files) tables.push_back(read_calibration_csv(file, unnamed_dtype));
  return tables;
}

void set_attention_kernel(CalibrationTable& table, FlashKernel kernel) {
  if (table.kind != KernelTableKind::attention) return;
  table.attention_kernel = kernel;
  for (Measurement& m : table.rows) m.op.attn.kernel = kernel;
}

}  // namespace pf::models
