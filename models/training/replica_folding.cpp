#include "models/training/replica_folding.h"

#include <algorithm>
#include <bit>
#include <map>

#include "models/network/nic_share.h"
#include "models/network/routing.h"

namespace pf::models::training {
namespace {

using workload::Coords;
using workload::GroupId;
using workload::GroupKind;
using workload::RankLayout;
using Signature = std::vector<std::int64_t>;

// Dense ids for equal signatures, in order of first appearance.
class Interner {
 public:
  int id(const Signature& s) { return ids_.try_emplace(s, static_cast<int>(ids_.size())).first->second; }

 private:
  std::map<Signature, int> ids_;
};

std::int64_t bits(double v) { return std::bit_cast<std::int64_t>(v); }

struct Groups {
  const FoldInputs& in;
  // Dense collective group of `kind` for `gpu`; -1 when the GPU has none of more than one GPU.
  std::int64_t dense(GroupKind kind, int gpu) const {
    const auto k = static_cast<std::size_t>(kind);
    if (in.layout->group_size(kind) <= 1) return -1;
    const GroupId id = in.layout->group_of(kind, gpu);
    if (id.is_none()) return -1;
    return static_cast<std::int64_t>(in.group_base[k] + id.index());
  }
};

// What times a group's collectives: its shape over servers, its links, and
// whether it is timed in closed form.
Signature group_signature(const FoldInputs& in, std::size_t dense) {
  const auto i = static_cast<collective::GroupIndex>(dense);
  const collective::Group& g = in.groups->group(i);
  const collective::GroupLinks& l = in.groups->links(i);
  return {g.size(), g.nodes(), g.max_per_node(), g.regular() ? 1 : 0, bits(l.intra_latency_s), bits(l.intra_Bps),
          bits(l.inter_latency_s), bits(l.inter_Bps), l.rails, in.closed_form[dense]};
}

// What times a message from a to b in the analytical network.
Signature path_signature(const network::ClusterGraph& graph, const network::NicShare& share, int a, int b) {
  network::Path path;
  network::route(graph, a, b, 0, path);
  const network::PathStats s = network::path_stats(graph, path);
  return {s.latency.ps, bits(s.bottleneck_Bps), bits(share.cap_Bps(a, b)), s.hops};
}

// Whether a dense group's members belong to more than one replica.
std::vector<std::uint8_t> spanning_groups(const FoldInputs& in) {
  std::vector<std::uint8_t> out(in.groups->size(), 0);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const collective::Group& g = in.groups->group(static_cast<collective::GroupIndex>(i));
    const int dp = in.layout->coords(g.member(0)).dp;
    for (int m : g.members())
      if (in.layout->coords(m).dp != dp) {
        out[i] = 1;
        break;
      }
  }
  return out;
}

// The GPUs of replica d, position by position (pp, cp, tp).
std::vector<int> replica_gpus(const ParallelismSpec& par, const RankLayout& layout, int d) {
  std::vector<int> out;
  for (int pp = 0; pp < par.pp; ++pp)
    for (int cp = 0; cp < par.cp; ++cp)
      for (int tp = 0; tp < par.tp; ++tp) out.push_back(layout.rank(Coords{tp, cp, d, pp}));
  return out;
}

// Per GPU: on a server that a GPU fault touches (a slowdown, jitter drawn per
// GPU, or replacement hardware given to the whole server). Such a GPU's
// replica is a class of its own: folding stays off for what a fault touches.
std::vector<std::uint8_t> fault_touched(const FoldInputs& in) {
  const network::ClusterGraph& graph = in.groups->graph();
  std::vector<std::uint8_t> server(static_cast<std::size_t>(graph.shape().nodes), 0);
  for (const FaultSpec& f : in.experiment->faults)
    for (int g : f.gpus) server[static_cast<std::size_t>(graph.node_of_gpu(g))] = 1;
  std::vector<std::uint8_t> out(static_cast<std::size_t>(graph.gpu_count()), 0);
  for (int g = 0; g < graph.gpu_count(); ++g)
    out[static_cast<std::size_t>(g)] = server[static_cast<std::size_t>(graph.node_of_gpu(g))];
  return out;
}

// Each replica's own signature: its groups' costs and its pipeline paths,
// position by position; a replica a fault touches is unlike any other.
std::vector<int> initial_classes(const FoldInputs& in, const std::vector<std::vector<int>>& replicas) {
  const ParallelismSpec& par = *in.parallelism;
  const network::ClusterGraph& graph = in.groups->graph();
  const network::NicShare share(graph, 0);
  const Groups groups{in};
  const std::vector<std::uint8_t> touched = fault_touched(in);
  Interner group_ids, path_ids, classes;
  std::vector<int> out;
  for (std::size_t d = 0; d < replicas.size(); ++d) {
    const std::vector<int>& gpus = replicas[d];
    Signature sig;
    if (std::any_of(gpus.begin(), gpus.end(), [&](int g) { return touched[static_cast<std::size_t>(g)] != 0; }))
      sig.push_back(-2 - static_cast<std::int64_t>(d));
    for (int g : gpus) {
      for (int k = 1; k < workload::kGroupKindCount; ++k) {
        const std::int64_t dense = groups.dense(static_cast<GroupKind>(k), g);
        sig.push_back(dense < 0 ? -1 : group_ids.id(group_signature(in, static_cast<std::size_t>(dense))));
      }
      Coords c = in.layout->coords(g);
      const int pp = c.pp;
      for (int step : {1, par.pp - 1}) {
        c.pp = (pp + step) % par.pp;
        const int peer = in.layout->rank(c);
        sig.push_back(peer == g ? -1 : path_ids.id(path_signature(graph, share, g, peer)));
        sig.push_back(peer == g ? -1 : path_ids.id(path_signature(graph, share, peer, g)));
      }
    }
    out.push_back(classes.id(sig));
  }
  return out;
}

// One refinement: a replica's class and, for every group of it that spans
// replicas, the multiset of classes that group holds.
std::vector<int> refined_classes(const FoldInputs& in, const std::vector<std::vector<int>>& replicas,
                                 const std::vector<int>& cls, const std::vector<std::uint8_t>& spanning) {
  std::vector<int> group_mix(in.groups->size(), -1);
  Interner mixes;
  for (std::size_t i = 0; i < group_mix.size(); ++i) {
    if (spanning[i] == 0) continue;
    Signature s;
    for (int m : in.groups->group(static_cast<collective::GroupIndex>(i)).members())
      s.push_back(cls[static_cast<std::size_t>(in.layout->coords(m).dp)]);
    std::sort(s.begin(), s.end());
    group_mix[i] = mixes.id(s);
  }
  const Groups groups{in};
  Interner classes;
  std::vector<int> out;
  for (std::size_t d = 0; d < replicas.size(); ++d) {
    Signature sig{cls[d]};
    for (int g : replicas[d])
      for (int k = 1; k < workload::kGroupKindCount; ++k) {
        const std::int64_t dense = groups.dense(static_cast<GroupKind>(k), g);
        if (dense >= 0 && spanning[static_cast<std::size_t>(dense)] != 0)
          sig.push_back(group_mix[static_cast<std::size_t>(dense)]);
      }
    out.push_back(classes.id(sig));
  }
  return out;
}

int class_count(const std::vector<int>& cls) { return cls.empty() ? 0 : *std::max_element(cls.begin(), cls.end()) + 1; }

// Why folding cannot apply to this run at all (empty: it may).
std::string run_blocker(const FoldInputs& in) {
  const ExperimentSpec& e = *in.experiment;
  if (e.simulation.fold == Fold::off) return "off (simulation.fold: off)";
  if (in.parallelism->dp <= 1) return "off (one data-parallel replica)";
  if (e.simulation.network != NetworkMode::analytical) return "off (packet network: replicas share links)";
  for (const FaultSpec& f : e.faults)
    if (f.target != FaultTarget::gpus)
      return "off (link and switch faults: a message's path, and so its time, depends on its ECMP flow)";
  return {};
}

}  // namespace

std::vector<std::uint8_t> ReplicaFolding::simulated_flags() const {
  std::vector<std::uint8_t> out(source.size(), 0);
  for (std::size_t g = 0; g < source.size(); ++g) out[g] = simulated(static_cast<int>(g)) ? 1 : 0;
  return out;
}

int ReplicaFolding::simulated_gpus() const {
  const std::vector<std::uint8_t> flags = simulated_flags();
  return static_cast<int>(std::count(flags.begin(), flags.end(), std::uint8_t{1}));
}

ReplicaFolding unfolded(int gpus, std::string reason) {
  ReplicaFolding f;
  f.reason = std::move(reason);
  f.source.resize(static_cast<std::size_t>(gpus));
  for (int g = 0; g < gpus; ++g) f.source[static_cast<std::size_t>(g)] = g;
  f.weight.assign(static_cast<std::size_t>(gpus), 1);
  return f;
}

ReplicaFolding fold_replicas(const FoldInputs& in) {
  const int gpus = in.layout->world_size();
  if (std::string why = run_blocker(in); !why.empty()) return unfolded(gpus, why);
  const std::vector<std::uint8_t> spanning = spanning_groups(in);
  for (std::size_t i = 0; i < spanning.size(); ++i)
    if (spanning[i] != 0 && in.closed_form[i] == 0)
      return unfolded(gpus, "off (a group spanning replicas is simulated message by message: "
                            "simulation.intra_server/inter_server packet or a flex MoE dispatcher across servers)");
  const int dp = in.parallelism->dp;
  std::vector<std::vector<int>> replicas;
  for (int d = 0; d < dp; ++d) replicas.push_back(replica_gpus(*in.parallelism, *in.layout, d));
  std::vector<int> cls = initial_classes(in, replicas);
  for (;;) {
    std::vector<int> next = refined_classes(in, replicas, cls, spanning);
    const bool stable = class_count(next) == class_count(cls);
    cls = std::move(next);
    if (stable) break;
  }
  const int classes = class_count(cls);
  if (classes == dp) return unfolded(gpus, "off (no two replicas are alike)");
  std::vector<int> rep(static_cast<std::size_t>(classes), -1), size(static_cast<std::size_t>(classes), 0);
  for (int d = 0; d < dp; ++d) {
    const auto c = static_cast<std::size_t>(cls[static_cast<std::size_t>(d)]);
    if (rep[c] < 0) rep[c] = d;
    ++size[c];
  }
  ReplicaFolding f;
  f.active = true;
  f.classes = classes;
  f.replicas = dp;
  f.source.assign(static_cast<std::size_t>(gpus), -1);
  f.weight.assign(static_cast<std::size_t>(gpus), 0);
  for (int d = 0; d < dp; ++d) {
    const auto c = static_cast<std::size_t>(cls[static_cast<std::size_t>(d)]);
    const std::vector<int>& mine = replicas[static_cast<std::size_t>(d)];
    const std::vector<int>& theirs = replicas[static_cast<std::size_t>(rep[c])];
    for (std::size_t p = 0; p < mine.size(); ++p) f.source[static_cast<std::size_t>(mine[p])] = theirs[p];
    if (rep[c] == d)
      for (int g : mine) f.weight[static_cast<std::size_t>(g)] = size[c];
  }
  // Every class of a group that a simulated GPU joins must join it through its representative.
  for (std::size_t i = 0; i < spanning.size(); ++i) {
    if (spanning[i] == 0) continue;
    const collective::Group& g = in.groups->group(static_cast<collective::GroupIndex>(i));
    const bool simulated = std::any_of(g.members().begin(), g.members().end(), [&](int m) { return f.simulated(m); });
    if (!simulated) continue;
    for (int m : g.members())
      if (g.member_index(f.source[static_cast<std::size_t>(m)]) < 0)
        return unfolded(gpus, "off (replica classes meet unevenly in group " + std::to_string(i) + ")");
  }
  return f;
}

std::uint32_t translated_group(const workload::RankLayout& layout, std::uint32_t raw_group, int to) {
  const GroupId id = GroupId::from_raw(raw_group);
  if (id.is_none()) return raw_group;
  return layout.group_of(id.kind(), to).raw();
}

GpuTotals folded_totals(const GpuTotals& source, int gpu) {
  GpuTotals t = source;
  t.gpu = static_cast<std::uint32_t>(gpu);
  return t;
}

ExecutedOp folded_op(const workload::RankLayout& layout, const ExecutedOp& source, int gpu) {
  ExecutedOp op = source;
  op.gpu = static_cast<std::uint32_t>(gpu);
  op.group = translated_group(layout, source.group, gpu);
  return op;
}

}  // namespace pf::models::training
