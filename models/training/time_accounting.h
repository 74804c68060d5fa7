// Where one GPU's time goes, measured as the simulation runs: at every change
// of what the GPU is doing, the stretch since the previous change is charged
// to exactly one state (compute busy; else the next kernel ready but not yet
// issued by the host = host wait; else a collective under way = exposed
// communication; else only pipeline send/recv under way = p2p wait; else a
// host copy under way = offload wait; else idle), and, separately, to "a
// collective under way" (total communication, overlapped or not). The six
// states add up to the GPU's span exactly. While
// a kernel runs at rate r < 1 beside NCCL kernels, dt (1 - r) of each stretch
// is also charged to the time compute lost to them (`stretch`).
#pragma once

#include <cstdint>

#include "core/sim_time.h"

namespace pf::models::training {

class TimeAccounting {
 public:
  // Charge the stretch [last change, now) before the state changes.
  void advance(core::SimTime now) {
    const std::int64_t dt = now.ps - last_.ps;
    last_ = now;
    if (dt <= 0) return;
    if (collectives_ > 0) comm_ps_ += dt;
    if (computing_) {
      busy_ps_ += dt;
      stretch_s_ += static_cast<double>(dt) * 1e-12 * (1.0 - compute_rate_);
    } else if (host_waiting_) {
      host_wait_ps_ += dt;
    } else if (collectives_ > 0) {
      exposed_ps_ += dt;
    } else if (p2p_ > 0) {
      p2p_wait_ps_ += dt;
    } else if (copies_ > 0) {
      offload_wait_ps_ += dt;
    }
  }
  void compute_started() { computing_ = true; }
  // The running kernel's rate from now on (1 = alone on the GPU).
  void compute_rate(double rate) { compute_rate_ = rate; }
  void compute_ended() { computing_ = false; }
  void collective_started() { ++collectives_; }
  void collective_ended() { --collectives_; }
  void p2p_started() { ++p2p_; }
  void p2p_ended() { --p2p_; }
  void copy_started() { ++copies_; }
  void copy_ended() { --copies_; }
  // The next kernel could start (its dependencies are done) but the host has
  // not issued it yet.
  void host_wait(bool waiting) { host_waiting_ = waiting; }

  bool collective_active() const { return collectives_ > 0; }
  std::int64_t busy_ps() const { return busy_ps_; }
  std::int64_t exposed_ps() const { return exposed_ps_; }
  std::int64_t comm_ps() const { return comm_ps_; }
  std::int64_t p2p_wait_ps() const { return p2p_wait_ps_; }
  std::int64_t host_wait_ps() const { return host_wait_ps_; }
  std::int64_t offload_wait_ps() const { return offload_wait_ps_; }
  double stretch_s() const { return stretch_s_; }

 private:
  core::SimTime last_;
  bool computing_ = false;
  bool host_waiting_ = false;
  double compute_rate_ = 1.0;
  double stretch_s_ = 0;
  int collectives_ = 0, p2p_ = 0, copies_ = 0;
  std::int64_t busy_ps_ = 0, exposed_ps_ = 0, comm_ps_ = 0, p2p_wait_ps_ = 0, host_wait_ps_ = 0, offload_wait_ps_ = 0;
};

}  // namespace pf::models::training
