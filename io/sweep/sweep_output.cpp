#include "io/sweep/sweep_output.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "io/report/string_format.h"
#include "io/sweep/variant_value.h"

namespace pf::sweep {

namespace {

using nlohmann::ordered_json;

using report::format;

std::string label_of(const SweepRow& row, const std::vector<std::string>& shortened) {
  Variant v;
  v.assignments = row.variant;
  return variant_label(v, shortened);
}

// RFC 4180: quote a field holding a comma, quote or line break; double the quotes.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (const char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// Fields already escaped, joined by commas, one line.
std::string csv_line(const std::vector<std::string>& fields) {
  std::string out;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    out += fields[i];
  }
  out += '\n';
  return out;
}

std::string change_text(const SweepRow& r, std::optional<std::size_t> baseline) {
  if (baseline && r.grid_index == *baseline) return "baseline";
  return r.change_pct ? format("%+.2f%%", *r.change_pct) : std::string("-");
}

}  // namespace

std::string format_table(const SweepTable& t) {
  const std::vector<std::string> shortened = short_keys(t.axes);
  std::size_t width = std::string("variant").size();
  for (const SweepRow& r : t.rows) width = std::max(width, label_of(r, shortened).size());
  const int w = static_cast<int>(width);

  std::size_t valid = 0;
  for (const SweepRow& r : t.rows) valid += r.valid ? 1 : 0;
  std::string out = format("sweep: %s (%s), %zu variants (%zu valid), %d MPI ranks, %d per variant\n",
                           t.name.c_str(), t.experiment.c_str(), t.rows.size(), valid, t.ranks, t.jobs_per_run);
  out += format("%4s  %-*s  %12s  %14s  %6s  %14s  %3s  %9s  %8s\n", "rank", w, "variant", "step_time_ms",
                "tokens_per_s", "mfu", "peak_memory_gb", "oom", "change", "wall_s");
  int rank = 0;
  for (const SweepRow& r : t.rows) {
    const std::string label = label_of(r, shortened);
    if (!r.valid) {
      out += format("%4s  %-*s  invalid: %s\n", "-", w, label.c_str(), r.error.c_str());
      continue;
    }
    out += format("%4d  %-*s  %12.3f  %14.0f  %6.4f  %14.2f  %3s  %9s  %8.3f\n", ++rank, w, label.c_str(),
                  r.step_time_ms, r.tokens_per_s, r.mfu, r.peak_memory_gb, r.oom ? "yes" : "no",
                  change_text(r, t.baseline).c_str(), r.wall_s);
  }
  if (t.bands) {
    std::vector<std::size_t> ranked;
    std::vector<std::string> labels;
    for (const SweepRow& r : t.rows) {
      if (!r.valid) continue;
      ranked.push_back(r.grid_index);
      labels.push_back(label_of(r, shortened));
    }
    out += format_bands(*t.bands, ranked, labels);
  }
  return out;
}

std::string format_csv(const SweepTable& t) {
  std::vector<std::string> header = {"rank", "grid_index", "variant"};
  for (const VaryAxis& a : t.axes) header.push_back(csv_field(a.key));
  for (const char* h : {"step_time_ms", "tokens_per_s", "mfu", "hfu", "peak_memory_gb", "oom", "change_pct", "wall_s",
                        "valid", "error"})
    header.emplace_back(h);
  std::string out = csv_line(header);
  const std::vector<std::string> shortened = short_keys(t.axes);
  int rank = 0;
  for (const SweepRow& r : t.rows) {
    std::vector<std::string> f = {r.valid ? std::to_string(++rank) : std::string(), std::to_string(r.grid_index),
                                  csv_field(label_of(r, shortened))};
    for (const Assignment& a : r.variant) f.push_back(csv_field(a.value));
    if (r.valid) {
      for (double v : {r.step_time_ms, r.tokens_per_s, r.mfu, r.hfu, r.peak_memory_gb}) f.push_back(exact_text(v));
      f.emplace_back(r.oom ? "yes" : "no");
      f.push_back(r.change_pct ? exact_text(*r.change_pct) : std::string());
      f.push_back(exact_text(r.wall_s));
      f.emplace_back("yes");
      f.emplace_back();
    } else {
      f.resize(f.size() + 8);  // no figures
      f.emplace_back("no");
      f.push_back(csv_field(r.error));
    }
    out += csv_line(f);
  }
  return out;
}

ordered_json sweep_json(const SweepTable& t) {
  ordered_json vary = ordered_json::array();
  for (const VaryAxis& a : t.axes) {
    ordered_json values = ordered_json::array();
    for (const std::string& v : a.values) values.push_back(value_json(v));
    vary.push_back({{"key", a.key}, {"values", std::move(values)}});
  }
  ordered_json rows = ordered_json::array();
  int rank = 0;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const SweepRow& r = t.rows[i];
    ordered_json variant = ordered_json::object();
    for (const Assignment& a : r.variant) variant[a.key] = value_json(a.value);
    auto figure = [&](double v) { return r.valid ? ordered_json(v) : ordered_json(nullptr); };
    ordered_json row;
    row["rank"] = r.valid ? ordered_json(++rank) : ordered_json(nullptr);
    row["variant"] = std::move(variant);
    row["grid_index"] = r.grid_index;
    row["step_time_ms"] = figure(r.step_time_ms);
    row["tokens_per_s"] = figure(r.tokens_per_s);
    row["mfu"] = figure(r.mfu);
    row["hfu"] = figure(r.hfu);
    row["peak_memory_gb"] = figure(r.peak_memory_gb);
    row["oom"] = r.valid ? ordered_json(r.oom) : ordered_json(nullptr);
    row["change_pct"] = r.change_pct ? ordered_json(*r.change_pct) : ordered_json(nullptr);
    row["wall_s"] = figure(r.wall_s);
    row["valid"] = r.valid;
    row["error"] = r.valid ? ordered_json(nullptr) : ordered_json(r.error);
    if (t.bands) {
      std::optional<std::size_t> next;
      for (std::size_t k = i + 1; k < t.rows.size() && !next; ++k) {
        if (t.rows[k].valid) next = t.rows[k].grid_index;
      }
      row["uncertainty"] = r.valid ? band_json(*t.bands, r.grid_index, next) : ordered_json(nullptr);
    }
    rows.push_back(std::move(row));
  }
  ordered_json j;
  j["experiment"] = t.experiment;
  j["name"] = t.name;
  j["vary"] = std::move(vary);
  j["baseline_grid_index"] = t.baseline ? ordered_json(*t.baseline) : ordered_json(nullptr);
  j["ranks"] = t.ranks;
  j["jobs_per_run"] = t.jobs_per_run;
  if (t.bands) j["uncertainty_samples"] = t.bands->samples;
  j["rows"] = std::move(rows);
  return j;
}

std::string progress_line(const SweepRow& row, std::size_t total, const std::vector<std::string>& shortened) {
  const std::string head = format("sweep: [%zu/%zu] %s: ", row.grid_index + 1, total, label_of(row, shortened).c_str());
  if (!row.valid) return head + "invalid: " + row.error;
  return head + format("%.3f ms, %.0f tokens/s, MFU %.4f%s (%.2f s)", row.step_time_ms, row.tokens_per_s, row.mfu,
                       row.oom ? ", does not fit in memory" : "", row.wall_s);
}

}  // namespace pf::sweep
