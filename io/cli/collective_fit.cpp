#include "io/cli/collective_fit.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "core/communicator.h"
#include "io/run/collective_bench.h"
#include "models/collective/nccl_cost.h"

namespace pf::cli {
namespace {

using run::BenchCase;
using run::CollectiveBench;

std::vector<double> predicted_us(const models::HardwareSpec& hw, const models::TopologySpec& topo,
                                 const NcclTestsTable& t, double launch_us) {
  models::SimulationSpec sim;
  sim.network = models::NetworkMode::analytical;
  sim.partition = models::PartitionStrategy::block;
  run::BenchOptions options;
  options.nccl = hw.nccl;
  const CollectiveBench bench(hw.node, topo, sim, core::Communicator::self(), options);
  std::vector<double> out;
  for (const NcclTestsRow& r : t.rows) {
    BenchCase c;
    c.op = t.op;
    c.gpus = t.gpus;
    c.bytes = r.bytes;
    out.push_back(nccl_tests_time_us(bench.run(c).time.us() + hw.gpu.efficiency.communication_overhead_us,
                                     t.gpus_per_thread, launch_us));
  }
  return out;
}

// One fitted figure: multiplicative steps for scales and fractions, additive
// ones (us) for times; a step halves when neither direction improves.
struct Knob {
  double value;
  double lo, hi;
  double step, min_step;
  bool additive;
};

// The figures as the search moves them. The local pass is searched as its
// cost per MB (us), which starts at 0 (none) and moves additively.
struct Figures {
  models::HardwareSpec hw;
  double launch_us = 0;
};

enum KnobIndex { kScale, kOverhead, kLink, kPassUsPerMb, kLaunch, kP2p, kKnobs };

Figures apply(const models::HardwareSpec& start, bool across, const Knob (&k)[kKnobs]) {
  Figures f{start, k[kLaunch].value};
  f.hw.nccl.p2p_nvlink_efficiency = k[kP2p].value;
  f.hw.nccl.latency_scale = k[kScale].value;
  f.hw.gpu.efficiency.communication_overhead_us = k[kOverhead].value;
  (across ? f.hw.node.nic_efficiency : f.hw.node.nvlink_efficiency) = k[kLink].value;
  f.hw.nccl.local_pass_gbps = k[kPassUsPerMb].value > 0 ? 1e6 / (k[kPassUsPerMb].value * 1e3) : 0;  // 1 MB per x us
  return f;
}

double log_error(const Figures& f, const models::TopologySpec& topo, const std::vector<NcclTestsTable>& tables) {
  double sum = 0;
  int n = 0;
  for (const NcclTestsTable& t : tables) {
    const std::vector<double> p = predicted_us(f.hw, topo, t, f.launch_us);
    for (std::size_t i = 0; i < p.size(); ++i, ++n) sum += std::abs(std::log(p[i] / t.rows[i].time_us));
  }
  return n > 0 ? sum / n : 0;
}

}  // namespace

double nccl_tests_time_us(double call_us, int gpus_per_thread, double launch_us) {
  return std::max(call_us, gpus_per_thread * launch_us);
}

std::vector<NcclTestsTable> power_of_two_rows(std::vector<NcclTestsTable> tables) {
  for (NcclTestsTable& t : tables) {
    std::erase_if(t.rows, [](const NcclTestsRow& r) { return r.bytes == 0 || (r.bytes & (r.bytes - 1)) != 0; });
  }
  std::erase_if(tables, [](const NcclTestsTable& t) { return t.rows.empty(); });
  return tables;
}

models::TopologySpec bench_topology(const models::HardwareSpec& hw, const std::vector<NcclTestsTable>& tables) {
  int gpus = 2;
  for (const NcclTestsTable& t : tables) gpus = std::max(gpus, t.gpus);
  models::TopologySpec topo;
  topo.kind = models::TopologyKind::single_switch;
  topo.nodes = (gpus + hw.node.gpus_per_node - 1) / hw.node.gpus_per_node;
  return topo;
}

TableError table_error(const models::HardwareSpec& hw, const models::TopologySpec& topo, const NcclTestsTable& t,
                       double launch_us) {
  const std::vector<double> p = predicted_us(hw, topo, t, launch_us);
  TableError e;
  std::vector<double> signed_errors;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const double r = p[i] / t.rows[i].time_us - 1;
    e.mean_abs += std::abs(r);
    signed_errors.push_back(r);
  }
  e.rows = static_cast<int>(p.size());
  if (e.rows > 0) {
    e.mean_abs /= e.rows;
    std::sort(signed_errors.begin(), signed_errors.end());
    e.median_signed = signed_errors[signed_errors.size() / 2];
  }
  return e;
}

CollectiveFit fit_collectives(const models::HardwareSpec& start, const models::TopologySpec& topo,
                              const std::vector<NcclTestsTable>& tables) {
  CollectiveFit fit;
  std::set<int> all_reduce_sizes;
  bool collectives = false, p2p = false;
  for (const NcclTestsTable& t : tables) {
    fit.across_servers = fit.across_servers || t.gpus > start.node.gpus_per_node;
    fit.fitted_launch = fit.fitted_launch || t.gpus_per_thread > 1;
    if (t.op == models::collective::Op::all_reduce) all_reduce_sizes.insert(t.gpus);
    (models::collective::is_p2p(t.op) ? p2p : collectives) = true;
  }
  // The p2p share of NVLink is seen in point-to-point tables inside one
  // server; the collectives' link figure only where collectives are given
  // (an all-to-all table alone leaves nvlink_efficiency as it was).
  fit.fitted_p2p = p2p && !fit.across_servers;
  fit.fitted_link = collectives || fit.across_servers;
  // A pass independent of the group's size is seen only against more than one size.
  fit.fitted_local_pass = all_reduce_sizes.size() >= 2;
  const double pass_us_per_mb = start.nccl.local_pass_gbps > 0 ? 1e3 / start.nccl.local_pass_gbps : 0;
  Knob k[kKnobs] = {
      {start.nccl.latency_scale, 0.1, 10.0, 0.5, 0.01, false},
      {start.gpu.efficiency.communication_overhead_us, 0.0, 500.0, 16.0, 0.25, true},
      {fit.across_servers ? start.node.nic_efficiency : start.node.nvlink_efficiency, 0.3, 1.0, 0.1, 0.002, false},
      {pass_us_per_mb, 0.0, 100.0, 1.0, 0.01, true},
      {fit.fitted_launch ? 10.0 : 0.0, 0.0, 1000.0, 4.0, 0.1, true},
      {start.nccl.p2p_nvlink_efficiency, 0.3, 1.0, 0.1, 0.002, false},
  };
  bool active[kKnobs] = {true, true, fit.fitted_link, fit.fitted_local_pass, fit.fitted_launch, fit.fitted_p2p};
  double best = log_error(apply(start, fit.across_servers, k), topo, tables);
  const auto steps_left = [&] {
    for (int i = 0; i < kKnobs; ++i)
      if (active[i] && k[i].step > k[i].min_step) return true;
    return false;
  };
  for (int round = 0; round < 60 && steps_left(); ++round) {
    for (int i = 0; i < kKnobs; ++i) {
      if (!active[i]) continue;
      bool improved = false;
      for (double dir : {1.0, -1.0}) {
        const double old = k[i].value;
        const double next = k[i].additive ? old + dir * k[i].step : old * (1 + dir * k[i].step);
        k[i].value = std::clamp(next, k[i].lo, k[i].hi);
        const double e = log_error(apply(start, fit.across_servers, k), topo, tables);
        if (e < best - 1e-9) {
          best = e;
          improved = true;
          break;
        }
        k[i].value = old;
      }
      if (!improved) k[i].step /= 2;
    }
  }
  const Figures f = apply(start, fit.across_servers, k);
  fit.hardware = f.hw;
  fit.launch_us = f.launch_us;
  fit.error = best;
  return fit;
}

}  // namespace pf::cli
