#include "models/collective/collective_types.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>

namespace pf::models::collective {
namespace {

constexpr std::array<std::pair<std::string_view, Op>, 8> kOps{{{"all_reduce", Op::all_reduce},
                                                               {"all_gather", Op::all_gather},
                                                               {"reduce_scatter", Op::reduce_scatter},
                                                               {"all_to_all", Op::all_to_all},
                                                               {"broadcast", Op::broadcast},
                                                               {"send_recv", Op::send_recv},
                                                               {"send", Op::send},
                                                               {"recv", Op::recv}}};
constexpr std::array<std::pair<std::string_view, Algo>, 10> kAlgos{{{"auto", Algo::automatic},
                                                                    {"ring", Algo::ring},
                                                                    {"tree", Algo::tree},
                                                                    {"hierarchical", Algo::hierarchical},
                                                                    {"direct", Algo::direct},
                                                                    {"nvls", Algo::nvls},
                                                                    {"nvls_tree", Algo::nvls_tree},
                                                                    {"collnet_direct", Algo::collnet_direct},
                                                                    {"collnet_chain", Algo::collnet_chain},
                                                                    {"pat", Algo::pat}}};

}  // namespace

const char* to_string(Op op) {
  for (const auto& [name, value] : kOps)
    if (value == op) return name.data();
  return "?";
}

const char* to_string(Algo algo) {
  for (const auto& [name, value] : kAlgos)
    if (value == algo) return name.data();
  return "?";
}

namespace {
// "AllReduce", "allreduce", "all_reduce", "all_reduce_perf" -> "allreduce".
std::string folded(std::string_view name) {
  std::string out;
  for (char c : name)
    if (c != '_' && c != '-') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (out.size() > 4 && out.ends_with("perf")) out.resize(out.size() - 4);
  return out;
}
}  // namespace

std::optional<Op> parse_op(std::string_view name) {
  // nccl-tests' spellings too (all_reduce_perf, AllReduce, alltoall, sendrecv).
  const std::string want = folded(name);
  for (const auto& [n, value] : kOps)
    if (folded(n) == want) return value;
  return std::nullopt;
}

std::optional<Algo> parse_algo(std::string_view name) {
  const std::string want = folded(name);
  for (const auto& [n, value] : kAlgos)
    if (folded(n) == want) return value;
  return std::nullopt;
}

std::string algo_names() {
  std::string out;
  for (const auto& [n, value] : kAlgos) {
    if (value == Algo::automatic) continue;
    out += std::string(n) + " | ";
  }
  return out + "auto";
}

bool runs_as_tree(Algo algo) {
  return algo == Algo::tree || algo == Algo::nvls_tree || algo == Algo::collnet_direct ||
         algo == Algo::collnet_chain;
}

double bus_factor(Op op, int members) {
  const double n = members;
  switch (op) {
    case Op::all_reduce: return 2.0 * (n - 1) / n;
    case Op::all_gather:
    case Op::reduce_scatter:
    case Op::all_to_all: return (n - 1) / n;
    case Op::broadcast:
    case Op::send_recv:
    case Op::send:
    case Op::recv: return 1.0;
  }
  return 1.0;
}

double remote_dedup_share(int top_k, int experts, int members, int on_server) {
  if (top_k <= 0 || experts <= 0 || members <= 0 || on_server <= 0) return 1.0;
  const double held = static_cast<double>(experts) * on_server / members;
  double miss = 1.0;  // no pick among the server's experts
  for (int i = 0; i < top_k; ++i) {
    const double left = experts - i;
    miss *= left > held ? (left - held) / left : 0.0;
  }
  const double copies = static_cast<double>(top_k) * on_server / members;
  return std::min(1.0, (1.0 - miss) / copies);
}

}  // namespace pf::models::collective
