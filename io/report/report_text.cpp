#include "io/report/report_text.h"

#include "io/report/report_figures.h"
#include "io/report/string_format.h"

#include <cstdarg>
#include <cstdio>
#include <string>

namespace pf::report {

namespace {

using nlohmann::ordered_json;


// A number from the report; JSON null (a figure that does not exist) reads as 0.
double num(const ordered_json& j, const char* key) {
  const ordered_json& v = j.at(key);
  return v.is_number() ? v.get<double>() : 0.0;
}

// Counts stay integers (a double would round above 2^53).
long long integer(const ordered_json& j, const char* key) {
  const ordered_json& v = j.at(key);
  return v.is_number() ? v.get<long long>() : 0;
}

// A layer or micro-batch number; -1 (not tied to one) prints as "-".
std::string position(const ordered_json& j, const char* key) {
  const long long v = integer(j, key);
  return v < 0 ? std::string("-") : std::to_string(v);
}

std::string ms(double v) { return format("%.3f ms", v); }

// A row: label column, then the value.
class Block {
 public:
  void heading(const std::string& text) { text_ += text + "\n"; }
  void row(const char* label, const std::string& value) { text_ += format("  %-20s %s\n", label, value.c_str()); }
  std::string take() { return std::move(text_); }

 private:
  std::string text_;
};

void headline(const ordered_json& r, Block& b) {
  b.heading(format("preflight report: %s on %lld GPUs", r.value("name", std::string("experiment")).c_str(),
                   integer(r, "gpus")));
  b.row("step time", ms(num(r, "step_time_ms")));
  b.row("tokens/s", format("%.0f", num(r, "tokens_per_s")));
  b.row("MFU", format("%.1f %%   (HFU %.1f %%)", 100 * num(r, "mfu"), 100 * num(r, "hfu")));
  b.row("TFLOP/s per GPU",
        format("%.1f model, %.1f hardware", num(r, "model_tflops_per_gpu"), num(r, "hardware_tflops_per_gpu")));
}

void phases(const ordered_json& r, Block& b) {
  const double step = num(r, "step_time_ms");
  auto timed = [&](const char* label, double v, const char* note = "") {
    b.row(label, format("%12.3f ms  %5.1f %%%s", v, step > 0 ? 100 * v / step : 0.0, note));
  };
  b.heading(format("phases (critical path of GPU %lld, pipeline stage %lld)",
                   integer(r, "binding_gpu"),
                   integer(r.at("bottlenecks"), "binding_pp_stage")));
  timed("forward", num(r, "forward_ms"));
  timed("backward", num(r, "backward_ms"));
  timed("optimizer", num(r, "optimizer_ms"));
  b.heading("communication and idle time");
  timed("collectives", num(r, "collective_total_ms"), "  (total, overlapped or not)");
  timed("exposed", num(r, "collective_exposed_ms"), "  (not overlapped with compute)");
  timed("host-bound", num(r, "host_bound_ms"), "  (next kernel ready, not yet issued by the host)");
  if (r.contains("offload_wait_ms"))
    timed("offload wait", num(r, "offload_wait_ms"), "  (compute waiting on activation copies to and from the host)");
  if (r.contains("overlap_stretch_ms"))
    timed("beside NCCL", num(r, "overlap_stretch_ms"), "  (compute slowed by the SMs NCCL holds; in the phases)");
  if (r.contains("slowest_gpu_factor") && num(r, "slowest_gpu_factor") > 1) {
    const std::string factor = format("x%.4f", num(r, "slowest_gpu_factor"));
    const int lockstep = r.contains("lockstep_gpus") ? r.at("lockstep_gpus").get<int>() : 1;
    b.row("slowest GPU", format("%12s            (every kernel at the job's slowest part: speed_spread over the job, "
                                "speed_fluctuation over %d GPUs in lockstep; in the phases)",
                                factor.c_str(), lockstep));
  }
  const std::string p2p = format("  (p2p wait %.3f ms)", num(r, "p2p_wait_ms"));
  timed("bubble", num(r, "bubble_ms"), p2p.c_str());
  if (r.contains("pp_stage_work_ms") && r.at("pp_stage_work_ms").size() > 1) {
    std::string stages;
    for (const auto& w : r.at("pp_stage_work_ms")) stages += format("%s%.1f", stages.empty() ? "" : " ", w.get<double>());
    b.row("stage work", stages + " ms  (each stage's slowest GPU: compute, host-bound, offload waits)");
  }
}

void memory(const ordered_json& r, Block& b) {
  const ordered_json& m = r.at("memory");
  b.heading("memory (GiB per GPU)");
  std::string stages;
  for (const auto& gb : r.at("pp_stage_memory_gb")) stages += format("%s%.2f", stages.empty() ? "" : " ", gb.get<double>());
  b.row("per pipeline stage", stages);
  b.row("heaviest stage",
        format("%.2f = parameters %.2f + gradients %.2f + optimizer %.2f + activations %.2f + buffers %.2f",
               num(r, "peak_memory_gb"), num(m, "parameters_gb"), num(m, "gradients_gb"), num(m, "optimizer_gb"),
               num(m, "activations_gb"), m.contains("comm_buffers_gb") ? num(m, "comm_buffers_gb") : 0.0));
  if (m.contains("host_activations_gb"))
    b.row("in host memory", format("%.2f GiB of activations (activation offloading; not in the total)",
                                   num(m, "host_activations_gb")));
  const ordered_json& oom = r.at("oom");
  const bool host_oom = r.contains("host_oom") && !r.at("host_oom").is_null();
  if (oom.is_null() && !host_oom)
    b.row("verdict", "fits");
  else if (!oom.is_null())
    b.row("verdict", format("OUT OF MEMORY: needs %.2f of %.2f GiB (%.2f over)", num(oom, "required_gb"),
                            num(oom, "capacity_gb"), num(oom, "excess_gb")));
  if (host_oom) {
    const ordered_json& h = r.at("host_oom");
    b.row(oom.is_null() ? "verdict" : "",
          format("OUT OF HOST MEMORY: offloaded activations need %.2f of %.2f GiB per GPU (%.2f over, "
                 "hardware.node.host_memory_gb)",
                 num(h, "required_gb"), num(h, "capacity_gb"), num(h, "excess_gb")));
  }
}

void bottlenecks(const ordered_json& r, Block& b) {
  const ordered_json& bn = r.at("bottlenecks");
  b.heading("bottlenecks (binding GPU)");
  b.row("dominant op type", bn.at("dominant_op_type").get<std::string>());
  const char* label = "top ops by time";
  for (const auto& op : bn.at("top_ops_by_time")) {
    b.row(label, format("%-28s %12.3f ms  x%lld", op.at("kind").get<std::string>().c_str(), num(op, "ms"),
                        integer(op, "count")));
    label = "";
  }
  const ordered_json& c = bn.at("longest_collective");
  if (c.is_null()) {
    b.row("longest collective", "none");
    return;
  }
  b.row("longest collective",
        format("%s on %s: %.3f ms, %.1f MiB (gpu %lld, layer %s, microbatch %s)",
               c.at("kind").get<std::string>().c_str(), c.at("group").get<std::string>().c_str(), num(c, "ms"),
               num(c, "bytes") / (1024.0 * 1024.0), integer(c, "gpu"), position(c, "layer").c_str(),
               position(c, "microbatch").c_str()));
}

void uncertainty(const ordered_json& r, Block& b) {
  const ordered_json& u = r.at("uncertainty");
  const bool with_error = u.contains("model_error") && !u.at("model_error").is_null();
  std::size_t priors = u.contains("band_covers") ? u.at("band_covers").size() : std::size_t{0};
  if (with_error && priors > 0) --priors;  // the model error is one of band_covers
  b.heading(with_error ? "uncertainty (cost-model priors and the model's measured error)" : "uncertainty (cost-model priors)");
  b.row("step time range", format("%.3f .. %.3f ms  (P10 .. P90 to first order in %zu compute and host priors%s; "
                                  "basis %s, %.1f %% of compute calibrated)",
                                  num(u, "step_time_ms_low"), num(u, "step_time_ms_high"), priors,
                                  with_error ? " and the model error" : "",
                                  u.at("basis").get<std::string>().c_str(), 100 * num(u, "calibrated_fraction")));
  if (with_error) {
    const ordered_json& m = u.at("model_error");
    b.row("model error", format("measured / predicted step time on %lld published %s runs: P10 %.3f  P50 %.3f  P90 %.3f",
                                integer(m, "rows"), m.at("stratum").get<std::string>().c_str(), num(m, "p10"),
                                num(m, "p50"), num(m, "p90")));
  }
  if (!u.contains("p50")) return;
  const ordered_json& mfu = u.at("mfu");
  b.row("sampled band", format("P10 %.3f  P50 %.3f  P90 %.3f ms  (%lld runs, seed %lld; MFU %.1f .. %.1f %%)",
                               num(u, "p10"), num(u, "p50"), num(u, "p90"), integer(u, "samples"),
                               integer(u, "seed"), 100 * num(mfu, "p10"), 100 * num(mfu, "p90")));
  if (integer(u, "failed_samples") > 0) b.row("failed samples", format("%lld", integer(u, "failed_samples")));
  int shown = 0;
  for (const auto& s : u.at("sensitivity")) {
    if (shown == 5) break;
    b.row(shown++ == 0 ? "most sensitive" : "",
          format("%-44s %10.3f .. %.3f ms  (swing %.3f ms, rho %+.2f, %s prior)",
                 s.at("parameter").get<std::string>().c_str(), num(s, "step_time_ms_at_low"),
                 num(s, "step_time_ms_at_high"), num(s, "swing_ms"), num(s, "rank_correlation"),
                 s.at("prior").get<std::string>().c_str()));
  }
  const ordered_json& first = u.at("narrow_first");
  if (!first.is_null())
    b.row("measure next", format("%s (%s moves the step by %.3f ms across its range)",
                                 first.at("measure").get<std::string>().c_str(),
                                 first.at("parameter").get<std::string>().c_str(), num(first, "swing_ms")));
  // When the model's own error spans more than any parameter's range, no
  // parameter measurement narrows the band much: say what would.
  if (with_error) {
    const ordered_json& m = u.at("model_error");
    const double error_swing = num(r, "step_time_ms") * (num(m, "p90") - num(m, "p10"));
    const double top_swing = first.is_null() ? 0.0 : num(first, "swing_ms");
    if (error_swing > top_swing)
      b.row("", format("the model's own error (P10..P90 %.3f ms) outweighs every parameter: a measured step of this "
                       "plan, or of one close to it, would narrow the band most",
                       error_swing));
  }
}

// Each fault with what it touched and where it bit; with --baseline, what all of them added.
void faults(const ordered_json& r, Block& b) {
  if (!r.contains("faults")) return;
  b.heading("faults");
  for (const auto& f : r.at("faults")) {
    std::string touched = format("%lld GPUs", integer(f, "gpus"));
    if (integer(f, "links") > 0) touched = format("%lld links", integer(f, "links"));
    if (integer(f, "failed_links") > 0) touched += format(" (%lld failed)", integer(f, "failed_links"));
    if (integer(f, "servers") > 0) touched += format(", %lld servers' links", integer(f, "servers"));
    std::string bit;
    if (f.at("on_binding_gpu").get<bool>()) bit = ", includes the binding GPU";
    if (f.at("extra_compute_ms").is_number()) bit += format(", +%.3f ms compute per GPU vs its stage's other GPUs", num(f, "extra_compute_ms"));
    if (f.at("link_busy_ms").is_number())
      bit += format(", busiest link %.3f ms busy, %.1f MiB", num(f, "link_busy_ms"), num(f, "link_bytes") / (1024.0 * 1024.0));
    const std::string label = format("[%lld] %s", integer(f, "index"), f.at("target").get<std::string>().c_str());
    b.row(label.c_str(), format("%s: %s; %s%s", f.at("what").get<std::string>().c_str(),
                                f.at("effect").get<std::string>().c_str(), touched.c_str(), bit.c_str()));
  }
  if (!r.contains("fault_baseline")) return;
  const ordered_json& base = r.at("fault_baseline");
  b.row("without faults", format("%.3f ms (binding GPU %lld): the faults add %+.3f ms (%+.2f %%)", num(base, "step_time_ms"),
                                 integer(base, "binding_gpu"), num(base, "added_ms"), num(base, "added_pct")));
}

void simulation(const ordered_json& r, Block& b) {
  const ordered_json& s = r.at("simulation");
  b.heading("simulation");
  b.row("events", format("%lld on %lld ranks in %.3f s (%.4g events/s)", integer(s, "events"), integer(s, "ranks"), num(s, "wall_s"), num(s, "events_per_s")));
  b.row("synchronisation", format("%s, lookahead %.1f ns, %lld windows, %lld null messages",
                                  s.value("sync", std::string("?")).c_str(), num(s, "lookahead_ns"),
                                  integer(s, "windows"), integer(s, "null_messages")));
  b.row("partition", format("%lld cut edges, imbalance %.3f", integer(s, "partition_cut_edges"), num(s, "imbalance")));
  b.row("network", s.value("network", std::string("?")));
  if (s.contains("fold"))
    b.row("replica folding", format("%s, %lld GPUs simulated", s.value("fold", std::string("?")).c_str(),
                                    integer(s, "simulated_gpus")));
  if (s.contains("peak_rss_gb")) b.row("peak RSS", format("%.2f GiB (largest rank)", num(s, "peak_rss_gb")));
  if (s.contains("peak_pending_events"))
    b.row("pending events", format("%lld at most (summed over ranks)", integer(s, "peak_pending_events")));
  b.row("config sha256", r.at("config_sha256").get<std::string>());
  b.row("version", r.at("version").get<std::string>());
}

}  // namespace

// Every labelled figure of the registry, valued from the JSON.
void figures(const ordered_json& r, const core::Statistics& registry, Block& b) {
  bool any = false;
  for (const core::Statistics::Figure& f : registry.figures()) {
    const ordered_json* v = figure_value(r, f.key);
    if (f.label.empty() || v == nullptr || !v->is_number()) continue;
    if (!any) b.heading("figures");
    any = true;
    const std::string value = v->is_number_integer() ? std::to_string(v->get<long long>()) : format("%.6g", v->get<double>());
    b.row(f.label.c_str(), f.unit.empty() ? value : value + " " + f.unit);
  }
}

std::string report_text(const ordered_json& report, const core::Statistics& registry) {
  Block b;
  headline(report, b);
  phases(report, b);
  memory(report, b);
  bottlenecks(report, b);
  uncertainty(report, b);
  faults(report, b);
  simulation(report, b);
  figures(report, registry, b);
  return b.take();
}

}  // namespace pf::report
