// Coarse NVLink (a message crosses the NVSwitch as one piece) and fine NVLink
// (chunk by chunk) agree wherever ports are the bottleneck, which inside a
// non-blocking NVSwitch is everywhere; coarse costs far fewer events.
#include <gtest/gtest.h>

#include "tests/unit/network/test_cluster.h"

namespace pf {
namespace {

using models::NetworkMode;
using models::network::NvlinkFidelity;
using test::Transfer;

core::SimTime latest(const std::vector<core::SimTime>& times) { return *std::max_element(times.begin(), times.end()); }

struct Outcome {
  double makespan_ps;
  std::uint64_t events;
};

Outcome run(const std::vector<Transfer>& pattern, NvlinkFidelity nv) {
  const models::network::ClusterGraph g =
      models::network::build_cluster(test::server(8, 8), test::fabric(models::TopologyKind::single_switch, 1));
  test::TransferRig rig(g, test::net_config(NetworkMode::packet, 256 << 10, nv));
  const double t = static_cast<double>(latest(rig.run(pattern)).ps);
  return {t, rig.events()};
}

std::vector<Transfer> all_to_all(std::uint64_t bytes) {
  std::vector<Transfer> out;
  for (int s = 0; s < 8; ++s)
    for (int d = 1; d < 8; ++d) out.push_back({s, (s + d) % 8, bytes});
  return out;
}

TEST(NvlinkFidelity, CoarseAndFineAgreeOnAllToAll) {
  const Outcome coarse = run(all_to_all(8 << 20), NvlinkFidelity::coarse);
  const Outcome fine = run(all_to_all(8 << 20), NvlinkFidelity::fine);
  EXPECT_NEAR(coarse.makespan_ps / fine.makespan_ps, 1.0, 0.01);
  EXPECT_GT(fine.events, 10 * coarse.events);
}

TEST(NvlinkFidelity, CoarseAndFineAgreeOnIncast) {
  std::vector<Transfer> incast;
  for (int s = 1; s < 8; ++s) incast.push_back({s, 0, 16 << 20});
  const Outcome coarse = run(incast, NvlinkFidelity::coarse);
  const Outcome fine = run(incast, NvlinkFidelity::fine);
  EXPECT_NEAR(coarse.makespan_ps / fine.makespan_ps, 1.0, 0.01);
  // The receiver's NVLink port takes 7 messages at 300 GB/s.
  EXPECT_NEAR(fine.makespan_ps, 0.7e6 + 7.0 * (16 << 20) / 300e9 * 1e12, fine.makespan_ps * 0.01);
}

}  // namespace
}  // namespace pf
