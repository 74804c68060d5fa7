// Global GPU rank <-> parallel coordinates, and the communication groups.
//
// Order as Megatron-Core builds it (parallel_state.py, order "tp-cp-ep-dp-pp"):
// tp varies fastest, then cp, then dp, then pp:
//     rank = tp + TP * (cp + CP * (dp + DP * pp))
// Experts reuse the same ranks with the non-pipeline part of a rank,
// r = tp + TP * (cp + CP * dp), seen as r = etp + ETP * (ep + EP * edp)
// (Megatron-Core's expert rank generator, "MoE parallel folding"): etp varies
// fastest, then ep, then edp. With ETP = TP (the default) that splits the
// data-like index x = cp + CP * dp as x = ep + EP * edp, so with cp = 1 an EP
// group is EP consecutive data-parallel replicas ("carved out of dp"); with
// ETP = 1 an EP group is EP consecutive ranks. The expert data-parallel group
// (where expert gradients are reduced) strides over the EP groups.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/spec/training_spec.h"
#include "models/workload/group_id.h"

namespace pf::models::workload {

struct Coords {
  int tp = 0, cp = 0, dp = 0, pp = 0;
  friend bool operator==(const Coords&, const Coords&) = default;
};

class RankLayout {
 public:
  // Throws pf::ConfigError when a size is < 1 or etp * ep does not divide
  // tp * cp * dp (with etp = tp: ep does not divide dp * cp).
  explicit RankLayout(const ParallelismSpec& par);

  int world_size() const { return tp_ * cp_ * dp_ * pp_; }
  Coords coords(int rank) const;
  int rank(const Coords& c) const { return c.tp + tp_ * (c.cp + cp_ * (c.dp + dp_ * c.pp)); }
  int ep_rank(int rank) const;   // position in its EP group
  int edp_rank(int rank) const;  // position in its expert-DP group

  // The group of `kind` that `rank` belongs to. embd exists only with pp > 1 and
  // holds the first and last stage; other ranks get GroupId{} (none).
  GroupId group_of(GroupKind kind, int rank) const;
  int group_size(GroupKind kind) const;
  int group_count(GroupKind kind) const;
  // i-th member (0 <= i < group_size), in the order of the varying coordinate.
  int member(GroupId group, int i) const;
  std::vector<int> members(GroupId group) const;
  int rank_in_group(GroupKind kind, int rank) const;
  // "tp[3]", "dp_cp[0]": stable names for the timeline's /groups table.
  static std::string group_name(GroupId group);

 private:
  int data_index(const Coords& c) const { return c.cp + cp_ * c.dp; }
  int rank_from_data(int tp, int x, int pp) const;

  int stage_index(int rank) const { return rank % (tp_ * cp_ * dp_); }  // r above
  int stage_size() const { return tp_ * cp_ * dp_; }

  int tp_, cp_, dp_, pp_, ep_, etp_;
};

}  // namespace pf::models::workload
