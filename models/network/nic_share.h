// Analytical mode's static share of a NIC among the GPUs behind it.
//
// Analytical mode holds only the sender's own first port; flows from
// different GPUs share nothing (network.h). Where a server has fewer NICs than
// GPUs (hardware.node.nics_per_node < gpus_per_node: GPUs pair up behind one
// NIC on a PCIe switch), each of two GPUs would then get the whole NIC at
// once. In a training step the GPUs of a server communicate in the same
// phases (the data-parallel groups of a TP-sharded model reduce their
// gradients together; every rail's ring crosses servers in step), so
// analytical mode prices a message between servers at no more than the
// sending NIC's rate, and the receiving NIC's, divided by the run's GPUs
// behind that NIC. Packet mode needs none of this: its NIC ports queue what
// the GPUs behind them send. The check that this is what packet mode gives:
// tests/unit/network/nic_share_test.cpp.
#pragma once

#include <vector>

#include "models/network/topology.h"

namespace pf::models::network {

class NicShare {
 public:
  // active_gpus: the run's GPUs are 0 .. active_gpus - 1 (0 or more than the
  // cluster has = all of them).
  NicShare(const ClusterGraph& g, int active_gpus);

  // True when some NIC serves more than one of the run's GPUs.
  bool shared() const { return shared_; }
  // The rate a message from GPU src to GPU dst on another server gets at most
  // from the two NICs (bytes/s); +inf where neither NIC is shared.
  double cap_Bps(int src_gpu, int dst_gpu) const;

 private:
  const ClusterGraph& graph_;
  std::vector<double> up_Bps_;    // per NIC: NIC->leaf rate / the run's GPUs behind it
  std::vector<double> down_Bps_;  // per NIC: leaf->NIC rate / the same
  bool shared_ = false;
};

}  // namespace pf::models::network
