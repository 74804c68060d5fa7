// The floor the engine is measured against: models/phold/README.md's PHOLD as a bare
// sequential loop over std::priority_queue, with the model's own random
// streams, no engine, no pooling, no digest. It commits the same events as the
// engine (the count is printed so the bench can check), so the ratio of the two
// rates is the engine's overhead.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <queue>
#include <string>
#include <tuple>
#include <vector>

#include "core/communicator.h"
#include "models/phold/phold_model.h"

int main(int argc, char** argv) {
  pf::core::MpiSession mpi(&argc, &argv);  // the model library links the engine, which links MPI
  pf::models::PholdParams p;
  if (argc > 1) p.end = pf::core::SimTime::from_us(std::atof(argv[1]));
  if (argc > 2) p.remote = std::atof(argv[2]);
  pf::models::PholdModel model(p);

  using Item = std::tuple<std::int64_t, std::uint32_t, std::uint64_t, std::uint32_t>;  // time, src, seq, dst
  std::priority_queue<Item, std::vector<Item>, std::greater<>> queue;
  std::vector<std::uint64_t> seq(p.lps, 0);
  for (std::uint32_t lp = 0; lp < p.lps; ++lp)
    for (std::uint32_t e = 0; e < p.start_events; ++e) {
      const auto at = model.initial_time(lp);
      if (at < p.end) queue.emplace(at.ps, lp, seq[lp]++, lp);
    }

  const auto start = std::chrono::steady_clock::now();
  std::uint64_t events = 0;
  while (!queue.empty()) {
    const auto [time, src, s, dst] = queue.top();
    queue.pop();
    ++events;
    const auto hop = model.next_hop(dst, pf::core::SimTime{time});
    if (hop.at < p.end) queue.emplace(hop.at.ps, dst, seq[dst]++, hop.dst);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("events: %llu\nwall_s: %.3f\nevents_per_s: %.0f\n", static_cast<unsigned long long>(events), wall,
              static_cast<double>(events) / wall);
  return 0;
}
