#include "core/engine.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "core/mpi_handle.h"
#include "core/sync_state.h"

namespace pf::core {

void Engine::SyncStateDeleter::operator()(SyncState* state) const {
  // An active finish barrier (only after an unexpected exception) is left
  // alone: freeing a nonblocking collective's request is erroneous in MPI.
  if (state->window_op != MPI_OP_NULL) MPI_Op_free(&state->window_op);
  for (auto& per_rank : state->in_flight)
    for (auto& flight : per_rank)
      if (flight.request != MPI_REQUEST_NULL) MPI_Request_free(&flight.request);
  if (state->comm != MPI_COMM_NULL) MPI_Comm_free(&state->comm);
  if (state->quiet_comm != MPI_COMM_NULL) MPI_Comm_free(&state->quiet_comm);
  delete state;
}

namespace {

void check_config(const EngineConfig& config, int ranks, std::size_t lps, const std::vector<int>& lp_rank) {
  if (lps == 0) throw ConfigError("engine: the model has no LPs");
  if (lps > kMaxLps)
    throw ConfigError("engine: " + std::to_string(lps) + " LPs exceed the limit of " + std::to_string(kMaxLps));
  // Refused on one rank too: a model that runs only sequentially would give a
  // result (an error) that depends on the rank count.
  if (config.lookahead <= SimTime::zero())
    throw ConfigError("engine: lookahead must be > 0 ps (conservative synchronisation needs it), found " +
                      std::to_string(config.lookahead.ps) + " ps");
  if (!config.channel_lookahead.empty() &&
      config.channel_lookahead.size() != static_cast<std::size_t>(ranks) * static_cast<std::size_t>(ranks))
    throw ConfigError("engine: channel_lookahead needs ranks*ranks entries");
  if (!config.lp_lookahead.empty() && config.lp_lookahead.size() != lps)
    throw ConfigError("engine: lp_lookahead needs one entry per LP (" + std::to_string(lps) + "), found " +
                      std::to_string(config.lp_lookahead.size()));
  for (std::size_t lp = 0; lp < config.lp_lookahead.size(); ++lp)
    if (config.lp_lookahead[lp] <= SimTime::zero())
      throw ConfigError("engine: lookahead of LP " + std::to_string(lp) + " must be > 0 ps, found " +
                        std::to_string(config.lp_lookahead[lp].ps) + " ps");
  for (std::size_t lp = 0; lp < lps; ++lp)
    if (lp_rank[lp] < 0 || lp_rank[lp] >= ranks)
      throw ConfigError("engine: LP " + std::to_string(lp) + " mapped to rank " + std::to_string(lp_rank[lp]) +
                        ", expected 0.." + std::to_string(ranks - 1));
}

// Checked before the base class sizes its per-LP arrays from it.
std::vector<int> checked_lp_rank(const EngineConfig& config, int ranks, std::vector<int> lp_rank) {
  check_config(config, ranks, lp_rank.size(), lp_rank);
  return lp_rank;
}

}  // namespace

Engine::Engine(Communicator comm, std::vector<int> lp_rank, EngineConfig config)
    : LpContext(comm.rank(), comm.size(), checked_lp_rank(config, comm.size(), std::move(lp_rank))),
      comm_(std::move(comm)),
      config_(std::move(config)) {
  configure_lookahead_classes();
  configure_promises();

  sync_.reset(new SyncState);
  // A private communicator: messages an engine leaves unreceived when it stops
  // on an error can never be mistaken for another engine's.
  // (None for a local communicator: one rank, no MPI; run() never synchronises.)
  if (!comm_.is_local()) check_mpi(MPI_Comm_dup(comm_.handle().comm, &sync_->comm), "MPI_Comm_dup");
  for (int r = 0; r < ranks_; ++r) {
    SimTime l = channel_lookahead(rank_, r);
    if (r != rank_ && l <= SimTime::zero())
      throw ConfigError("engine: lookahead from rank " + std::to_string(rank_) + " to " + std::to_string(r) +
                        " must be > 0");
    lookahead_to_[static_cast<std::size_t>(r)] = l;
  }
  send_floor_ = lookahead_to_;  // nothing happens before time zero
}

void Engine::configure_lookahead_classes() {
  // One rank never synchronises: one class, one heap, no per-event lookup.
  if (ranks_ == 1 || config_.lp_lookahead.empty()) {
    queue_.configure({}, {config_.lookahead});
    return;
  }
  LookaheadClasses c = group_lookaheads(config_.lp_lookahead);
  queue_.configure(std::move(c.class_of), std::move(c.lookahead));
}

void Engine::configure_promises() {
  min_lookahead_ = config_.lookahead;
  if (!config_.lp_lookahead.empty())
    min_lookahead_ = *std::min_element(config_.lp_lookahead.begin(), config_.lp_lookahead.end());
  // One rank never synchronises: promises are kept for the check only.
  if (ranks_ == 1) return;
  std::vector<LpId> local;
  for (std::size_t lp = 0; lp < lp_rank_.size(); ++lp)
    if (lp_rank_[lp] == rank_) local.push_back(static_cast<LpId>(lp));
  std::vector<SimTime> lookahead = config_.lp_lookahead;
  if (lookahead.empty()) lookahead.assign(lp_rank_.size(), config_.lookahead);
  promises_.configure(lp_rank_.size(), local, lookahead);
  queue_.separate_quiet();
}

void Engine::observe(WindowProjections* projections) {
  if (ranks_ > 1 && projections != nullptr)
    throw ConfigError("engine: projecting other rank counts' windows needs a one-rank run, found " +
                      std::to_string(ranks_) + " ranks");
  observer_ = projections;
}

void Engine::check_end_is_reachable(bool model_reports_finished) const {
  // Null messages carry clocks forward one lookahead at a time; with no end
  // they would do so forever once every queue is empty (CMB has no quiescence
  // detection), unless the model says when it is done. Refused on one rank
  // too, so whether a configuration runs does not depend on the rank count.
  if (config_.sync == Sync::null_message && config_.end.is_infinite() && !model_reports_finished)
    throw ConfigError("engine: null_message synchronisation needs a finite end time (use window, or set an end)");
}

SimTime Engine::channel_lookahead(int from, int to) const {
  if (config_.channel_lookahead.empty()) return config_.lookahead;
  return config_.channel_lookahead[static_cast<std::size_t>(from) * static_cast<std::size_t>(comm_.size()) +
                                   static_cast<std::size_t>(to)];
}

void Engine::deliver(const Event* events, std::size_t count) {
  for (std::size_t i = 0; i < count; ++i) queue_.push(events[i]);
}

void Engine::raise_pending_error() {
  if (stop_) throw SimulationError(error_);
}

void Engine::fail_collectively() {
  // Every rank learns the first rank's message, so the error reads the same
  // whichever rank prints it and no rank is left waiting in a collective.
  std::vector<std::string> messages = comm_.all_gather(stop_ ? error_ : std::string());
  for (std::size_t r = 0; r < messages.size(); ++r)
    if (!messages[r].empty()) throw SimulationError("rank " + std::to_string(r) + ": " + messages[r]);
  throw SimulationError("a rank stopped with an error but sent no message");
}

EngineStats Engine::global_stats() const {
  static_assert(std::is_trivially_copyable_v<EngineStats>);
  const std::string mine(reinterpret_cast<const char*>(&stats_), sizeof(EngineStats));
  std::vector<EngineStats> all;
  for (const std::string& s : comm_.all_gather(mine)) {
    EngineStats r;
    std::memcpy(&r, s.data(), sizeof(EngineStats));
    all.push_back(r);
  }
  return combine(all);
}

std::vector<std::vector<WindowRecord>> Engine::global_windows() const {
  static_assert(std::is_trivially_copyable_v<WindowRecord>);
  const std::string mine(reinterpret_cast<const char*>(windows_.data()), windows_.size() * sizeof(WindowRecord));
  std::vector<std::vector<WindowRecord>> all;
  for (const std::string& bytes : comm_.all_gather(mine)) {
    all.emplace_back(bytes.size() / sizeof(WindowRecord));
    std::memcpy(all.back().data(), bytes.data(), bytes.size());
  }
  return all;
}

std::uint64_t Engine::global_digest() const {
  // Sum of per-LP digests mixed with the LP id: independent of how LPs are
  // spread over ranks, sensitive to each LP's own commit order.
  std::uint64_t local = 0;
  for (std::size_t lp = 0; lp < lp_rank_.size(); ++lp) {
    if (lp_rank_[lp] != rank_) continue;
    std::uint64_t x = digest_[lp] + (static_cast<std::uint64_t>(lp) + 1) * 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 33)) * 0xFF51AFD7ED558CCDull;
    x = (x ^ (x >> 33)) * 0xC4CEB9FE1A85EC53ull;
    local += x ^ (x >> 33);
  }
  return comm_.sum(local);
}

}  // namespace pf::core
