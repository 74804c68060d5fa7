#include "models/workload/rank_layout.h"

#include "core/error.h"

namespace pf::models::workload {

RankLayout::RankLayout(const ParallelismSpec& par)
    : tp_(par.tp), cp_(par.cp), dp_(par.dp), pp_(par.pp), ep_(par.ep), etp_(par.etp()) {
  if (tp_ < 1 || cp_ < 1 || dp_ < 1 || pp_ < 1 || ep_ < 1 || etp_ < 1) {
    throw ConfigError("parallelism: tp, cp, dp, pp, ep and expert_tp must all be >= 1, found tp=" +
                      std::to_string(tp_) + " cp=" + std::to_string(cp_) + " dp=" + std::to_string(dp_) +
                      " pp=" + std::to_string(pp_) + " ep=" + std::to_string(ep_) + " expert_tp=" + std::to_string(etp_));
  }
  if (etp_ == tp_ && (cp_ * dp_) % ep_ != 0) {
    throw ConfigError("parallelism.ep: expected a divisor of dp*cp = " + std::to_string(cp_ * dp_) +
                      " (experts are carved out of data parallelism), found " + std::to_string(ep_));
  }
  if (stage_size() % (etp_ * ep_) != 0) {
    throw ConfigError("parallelism.ep: expected expert_tp*ep to divide tp*cp*dp = " + std::to_string(stage_size()) +
                      ", found " + std::to_string(etp_) + "*" + std::to_string(ep_));
  }
}

Coords RankLayout::coords(int rank) const {
  Coords c;
  c.tp = rank % tp_;
  rank /= tp_;
  c.cp = rank % cp_;
  rank /= cp_;
  c.dp = rank % dp_;
  c.pp = rank / dp_;
  return c;
}

int RankLayout::rank_from_data(int tp, int x, int pp) const { return tp + tp_ * (x + cp_ * dp_ * pp); }

int RankLayout::ep_rank(int rank) const { return stage_index(rank) / etp_ % ep_; }
int RankLayout::edp_rank(int rank) const { return stage_index(rank) / (etp_ * ep_); }

int RankLayout::group_size(GroupKind kind) const {
  switch (kind) {
    case GroupKind::tp: return tp_;
    case GroupKind::cp: return cp_;
    case GroupKind::dp: return dp_;
    case GroupKind::dp_cp: return dp_ * cp_;
    case GroupKind::ep: return ep_;
    case GroupKind::edp: return stage_size() / (etp_ * ep_);
    case GroupKind::pp: return pp_;
    case GroupKind::embd: return pp_ > 1 ? 2 : 0;
    default: return 0;
  }
}

int RankLayout::group_count(GroupKind kind) const {
  int n = group_size(kind);
  if (kind == GroupKind::embd) return pp_ > 1 ? tp_ * cp_ * dp_ : 0;
  return n > 0 ? world_size() / n : 0;
}

GroupId RankLayout::group_of(GroupKind kind, int rank) const {
  Coords c = coords(rank);
  std::uint32_t index = 0;
  switch (kind) {
    case GroupKind::tp: index = static_cast<std::uint32_t>(rank / tp_); break;
    case GroupKind::cp: index = static_cast<std::uint32_t>(c.tp + tp_ * (c.dp + dp_ * c.pp)); break;
    case GroupKind::dp: index = static_cast<std::uint32_t>(c.tp + tp_ * (c.cp + cp_ * c.pp)); break;
    case GroupKind::dp_cp: index = static_cast<std::uint32_t>(c.tp + tp_ * c.pp); break;
    case GroupKind::ep: {
      const int r = stage_index(rank), edp_size = stage_size() / (etp_ * ep_);
      index = static_cast<std::uint32_t>(r % etp_ + etp_ * (edp_rank(rank) + edp_size * c.pp));
      break;
    }
    case GroupKind::edp: {
      const int r = stage_index(rank);
      index = static_cast<std::uint32_t>(r % etp_ + etp_ * (ep_rank(rank) + ep_ * c.pp));
      break;
    }
    case GroupKind::pp: index = static_cast<std::uint32_t>(rank % (tp_ * cp_ * dp_)); break;
    case GroupKind::embd:
      if (pp_ == 1 || (c.pp != 0 && c.pp != pp_ - 1)) return GroupId{};
      index = static_cast<std::uint32_t>(rank % (tp_ * cp_ * dp_));
      break;
    default: return GroupId{};
  }
  return GroupId{kind, index};
}

int RankLayout::member(GroupId group, int i) const {
  int g = static_cast<int>(group.index());
  switch (group.kind()) {
    case GroupKind::tp: return g * tp_ + i;
    case GroupKind::cp: {
      int tp = g % tp_, rest = g / tp_;
      return rank(Coords{tp, i, rest % dp_, rest / dp_});
    }
    case GroupKind::dp: {
      int tp = g % tp_, rest = g / tp_;
      return rank(Coords{tp, rest % cp_, i, rest / cp_});
    }
    case GroupKind::dp_cp: return rank_from_data(g % tp_, i, g / tp_);
    case GroupKind::ep: {
      const int etp = g % etp_, rest = g / etp_, edp_groups = stage_size() / (etp_ * ep_);
      return etp + etp_ * (i + ep_ * (rest % edp_groups)) + stage_size() * (rest / edp_groups);
    }
    case GroupKind::edp: {
      const int etp = g % etp_, rest = g / etp_;
      return etp + etp_ * (rest % ep_ + ep_ * i) + stage_size() * (rest / ep_);
    }
    case GroupKind::pp: return g + tp_ * cp_ * dp_ * i;
    case GroupKind::embd: return g + tp_ * cp_ * dp_ * (i == 0 ? 0 : pp_ - 1);
    default: return -1;
  }
}

std::vector<int> RankLayout::members(GroupId group) const {
  std::vector<int> out;
  int n = group_size(group.kind());
  out.reserve(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) out.push_back(member(group, i));
  return out;
}

int RankLayout::rank_in_group(GroupKind kind, int rank) const {
  Coords c = coords(rank);
  switch (kind) {
    case GroupKind::tp: return c.tp;
    case GroupKind::cp: return c.cp;
    case GroupKind::dp: return c.dp;
    case GroupKind::dp_cp: return data_index(c);
    case GroupKind::ep: return ep_rank(rank);
    case GroupKind::edp: return edp_rank(rank);
    case GroupKind::pp: return c.pp;
    case GroupKind::embd: return c.pp == 0 ? 0 : 1;
    default: return -1;
  }
}

std::string RankLayout::group_name(GroupId group) {
  return std::string(group_kind_name(group.kind())) + "[" + std::to_string(group.index()) + "]";
}

}  // namespace pf::models::workload
