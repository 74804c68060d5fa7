#include "models/training/training_model.h"

#include <array>

#include <string>

#include "models/training/cross_server_collective.h"
#include "models/training/server_collective.h"

namespace pf::models::training {

TrainingModel::TrainingModel(network::Network& net, ExecutionShared shared,
                             const std::function<ProgramSource(int gpu)>& program, const std::vector<int>& local_gpus,
                             const std::vector<bool>& record, int gpu_count)
    : net_(net), shared_(std::move(shared)), slot_(static_cast<std::size_t>(gpu_count), -1) {
  gpus_.reserve(local_gpus.size());
  for (int g : local_gpus) {
    slot_[static_cast<std::size_t>(g)] = static_cast<std::int32_t>(gpus_.size());
    gpus_.emplace_back(program(g), record[static_cast<std::size_t>(g)]);
  }
  unfinished_ = gpus_.size();
  shared_.records = &records_;
}

void TrainingModel::seed(core::LpContext& engine) {
  // simulation.lookahead: dynamic. One rank never synchronises: no promise
  // is needed (nor checked) unless the run projects other rank counts' windows.
  shared_.promises = shared_.promises && engine.wants_promises();  // else no quiet events either
  if (shared_.server != nullptr) shared_.server->set_quiet(shared_.promises);
  if (shared_.promises) engine.set_promise_source(this);
  for (const GpuExecutor& g : gpus_)
    engine.schedule_initial(core::SimTime::zero(), static_cast<core::LpId>(g.gpu()), GpuStart{});
}

void TrainingModel::note_finished(const GpuExecutor& gpu, bool was_finished) {
  if (!was_finished && gpu.finished()) --unfinished_;
}

void TrainingModel::delivered(core::LpContext& engine, const collective::Completion& c) {
  if (!c.done) return;
  GpuExecutor& g = executor(static_cast<core::LpId>(c.gpu));
  const bool was = g.finished();
  g.on_comm_delivered(engine, shared_, static_cast<std::uint32_t>(c.cookie), c.not_before);
  note_finished(g, was);
}

void TrainingModel::on_event(core::LpContext& engine, const core::Event& event) {
  handle(engine, event);
  if (!shared_.promises) return;
  // A GPU's promise follows every event it handles (its kernel and
  // collective completions are quiet: core/promise_board.h,
  // gpu_output_bound.cpp), and every quiet completion a server's last member
  // sends it.
  if (shared_.server != nullptr && !shared_.server->scheduled().empty()) {
    for (const ServerCollectives::Scheduled& s : shared_.server->scheduled()) {
      GpuExecutor& member = executor(static_cast<core::LpId>(s.gpu));
      member.note_quiet_completion(s.op, s.at);
      if (static_cast<core::LpId>(s.gpu) != event.dst)
        engine.promise_for(static_cast<core::LpId>(s.gpu), member.earliest_output(engine.now(), false, shared_));
    }
    shared_.server->scheduled().clear();
  }
  // After one of its quiet events the GPU's last promise still holds, and
  // is worked out again only if it would bound a window (current_promise):
  // a walk of the program at every kernel's end cost a third of the run.
  if (event.dst < slot_.size() && slot_[event.dst] >= 0) {
    const bool quiet = (event.flags & core::kQuietEvent) != 0;
    if (quiet && engine.defer_promise()) return;
    engine.promise(executor(event.dst).earliest_output(engine.now(), quiet, shared_));
  }
}

core::SimTime TrainingModel::current_promise(core::LpId lp) {
  // Not after a quiet event: the memo of an unchanged state only.
  return executor(lp).earliest_output(core::SimTime::zero(), false, shared_);
}

void TrainingModel::handle(core::LpContext& engine, const core::Event& event) {
  static_assert(TrainingEvents::valid);
  switch (event.kind) {
    case core::kind_of<network::ChunkArrival>: net_.forward(engine, event.as<network::ChunkArrival>()); return;
    case core::kind_of<network::MessageDelivered>:
      delivered(engine, shared_.collectives->on_delivery(
                            engine, network::Network::delivery(event.as<network::MessageDelivered>())));
      return;
    case core::kind_of<collective::PortFree>:
      delivered(engine, shared_.collectives->on_port_free(engine, event.as<collective::PortFree>()));
      return;
    case core::kind_of<MemberJoined>:
      shared_.cross->on_joined(engine, event.as<MemberJoined>(), shared_.comm_overhead);
      return;
    default: break;
  }
  GpuExecutor& g = executor(event.dst);
  const bool was = g.finished();
  switch (event.kind) {
    case core::kind_of<GpuStart>: g.drive(engine, shared_); break;
    case core::kind_of<ComputeDone>: {
      const auto done = event.as<ComputeDone>();
      g.on_compute_done(engine, shared_, done.op, done.token);
      break;
    }
    case core::kind_of<CommDone>: g.on_comm_done(engine, shared_, event.as<CommDone>().op); break;
    case core::kind_of<HostIssued>: g.on_host_issued(engine, shared_); break;
    default: engine.fail("training: unknown event kind " + std::to_string(event.kind)); return;
  }
  note_finished(g, was);
}

double TrainingModel::progress() const {
  if (gpus_.empty()) return 1;
  double sum = 0;
  for (const GpuExecutor& g : gpus_) sum += g.progress();
  return sum / static_cast<double>(gpus_.size());
}

void TrainingModel::publish(core::Statistics& out) const {
  std::array<std::int64_t, 4> per_stream{};  // workload::Stream: compute, comm, p2p, copy
  for (const GpuExecutor& g : gpus_) {
    // A representative's ops stand for its folded replicas' too.
    const std::int64_t weight =
        shared_.gpu_weight != nullptr ? (*shared_.gpu_weight)[static_cast<std::size_t>(g.gpu())] : 1;
    for (int k = 0; k < workload::kOpKindCount; ++k)
      per_stream[static_cast<std::size_t>(workload::stream_of(static_cast<workload::OpKind>(k)))] +=
          weight * static_cast<std::int64_t>(g.stats().kinds[static_cast<std::size_t>(k)].count);
  }
  using M = core::Statistics::Merge;
  out.add({"training.compute_ops", "compute ops", "", "compute kernels executed by all GPUs", M::sum}, per_stream[0]);
  out.add({"training.collective_ops", "collective ops", "", "collective calls completed by all GPUs (one per member)", M::sum},
          per_stream[1]);
  out.add({"training.p2p_ops", "p2p ops", "", "pipeline sends and receives completed by all GPUs", M::sum}, per_stream[2]);
  out.add({"training.host_copies", "host copies", "", "activation offload and reload copies by all GPUs", M::sum},
          per_stream[3]);
}

}  // namespace pf::models::training
