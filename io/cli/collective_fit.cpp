#include "io/cli/collective_fit.h"

#include <algorithm>
#include <cmath>

#include "core/communicator.h"
#include "io/run/collective_bench.h"

namespace pf::cli {
namespace {

using run::BenchCase;
using run::CollectiveBench;

std::vector<double> predicted_us(const models::HardwareSpec& hw, const models::TopologySpec& topo,
                                 const NcclTestsTable& t) {
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
    out.push_back(bench.run(c).time.us() + hw.gpu.efficiency.communication_overhead_us);
  }
  return out;
}

double log_error(const models::HardwareSpec& hw, const models::TopologySpec& topo,
                 const std::vector<NcclTestsTable>& tables) {
  double sum = 0;
  int n = 0;
  for (const NcclTestsTable& t : tables) {
    const std::vector<double> p = predicted_us(hw, topo, t);
    for (std::size_t i = 0; i < p.size(); ++i, ++n) sum += std::abs(std::log(p[i] / t.rows[i].time_us));
  }
  return n > 0 ? sum / n : 0;
}

// The three fitted figures, as one vector.
struct Knobs {
  double* value[3];
  double lo[3];
  double hi[3];
};

Knobs knobs(models::HardwareSpec& hw, bool across) {
  double* link = across ? &hw.node.nic_efficiency : &hw.node.nvlink_efficiency;
  return {{&hw.nccl.latency_scale, &hw.gpu.efficiency.communication_overhead_us, link}, {0.1, 0.0, 0.3},
          {10.0, 500.0, 1.0}};
}

}  // namespace

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

TableError table_error(const models::HardwareSpec& hw, const models::TopologySpec& topo, const NcclTestsTable& t) {
  const std::vector<double> p = predicted_us(hw, topo, t);
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
  fit.hardware = start;
  for (const NcclTestsTable& t : tables) fit.across_servers = fit.across_servers || t.gpus > start.node.gpus_per_node;
  Knobs k = knobs(fit.hardware, fit.across_servers);
  double best = log_error(fit.hardware, topo, tables);
  // Multiplicative steps for the scale and the link fraction, additive (us)
  // for the overhead; a step halves when neither direction improves.
  double step[3] = {0.5, 16.0, 0.1};
  for (int round = 0; round < 40 && (step[0] > 0.01 || step[1] > 0.25 || step[2] > 0.002); ++round) {
    for (int i = 0; i < 3; ++i) {
      bool improved = false;
      for (double dir : {1.0, -1.0}) {
        const double old = *k.value[i];
        const double next = i == 1 ? old + dir * step[i] : old * (1 + dir * step[i]);
        *k.value[i] = std::clamp(next, k.lo[i], k.hi[i]);
        const double e = log_error(fit.hardware, topo, tables);
        if (e < best - 1e-9) {
          best = e;
          improved = true;
          break;
        }
        *k.value[i] = old;
      }
      if (!improved) step[i] /= 2;
    }
  }
  fit.error = best;
  return fit;
}

}  // namespace pf::cli
