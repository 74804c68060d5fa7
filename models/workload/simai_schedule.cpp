#include "models/workload/simai_schedule.h"

#include <string>

#include "core/error.h"

namespace pf::models::workload {
namespace {

bool is_attention(const SimaiLayer& l) { return l.name.rfind("attention", 0) == 0; }

// The first micro-batch's first line when the file's embedding_layer lines
// are its `ga` micro-batches (simai_microbatch_starts' rule), else 0.
std::uint32_t first_block(const SimaiWorkload& w) {
  int count = 0;
  std::size_t first = 0;
  for (std::size_t i = 0; i < w.layers.size(); ++i)
    if (w.layers[i].name == "embedding_layer" && count++ == 0) first = i;
  return count == w.ga ? static_cast<std::uint32_t>(first) : 0;
}

std::string where(const SimaiWorkload& w, std::uint32_t line) {
  return w.file + ":" + std::to_string(line < w.layers.size() ? w.layers[line].line : 1);
}

// The transformer layers of lines [begin, end): a layer starts at a line named
// attention* that follows a line of another name (AICB writes a layer's
// attention lines, then its mlp lines) or that repeats the name of its layer's
// first line (a file of attention lines only).
void layer_starts(const SimaiWorkload& w, std::uint32_t begin, std::uint32_t end, std::vector<std::uint32_t>& out) {
  out.clear();
  const std::string* first = nullptr;
  for (std::uint32_t i = begin; i < end; ++i) {
    const SimaiLayer& l = w.layers[i];
    if (!is_attention(l)) {
      first = nullptr;
    } else if (first == nullptr || l.name == *first) {
      out.push_back(i);
      first = &l.name;
    }
  }
}

// Cuts each micro-batch block into `chunks` pieces of equal layer count.
std::vector<std::uint32_t> chunk_bounds(const SimaiWorkload& w, const std::vector<std::uint32_t>& blocks,
                                        int chunks) {
  std::vector<std::uint32_t> bounds, layers;
  for (std::size_t mb = 0; mb + 1 < blocks.size(); ++mb) {
    layer_starts(w, blocks[mb], blocks[mb + 1], layers);
    const auto count = static_cast<int>(layers.size());
    if (count == 0 || count % chunks != 0)
      throw ConfigError(where(w, blocks[mb]) + ": vpp: expected the transformer layers of the micro-batch from "
                        "this line to line " + std::to_string(w.layers[blocks[mb + 1] - 1].line) +
                        " (a layer starts at a line named attention*) to split into " + std::to_string(chunks) +
                        " equal chunks, found " + std::to_string(count) + " layers");
    bounds.push_back(blocks[mb]);
    for (int c = 1; c < chunks; ++c) bounds.push_back(layers[static_cast<std::size_t>(c * count / chunks)]);
  }
  bounds.push_back(blocks.back());
  return bounds;
}

}  // namespace

SimaiPipeline simai_pipeline(const SimaiWorkload& w) {
  SimaiPipeline p;
  const std::vector<std::size_t> starts = simai_microbatch_starts(w);
  p.microbatches = static_cast<int>(starts.size());
  p.bounds.assign(starts.begin(), starts.end());
  p.bounds.push_back(static_cast<std::uint32_t>(w.layers.size()));
  p.piped = w.policy == SimaiPolicy::transformer && w.pp > 1 && w.pp_comm_bytes > 0;
  if (!p.piped) return p;
  p.lead_end = first_block(w);
  p.bounds[0] = p.lead_end;
  p.chunks = w.vpp;
  if (p.chunks == 1) return p;
  if (p.microbatches % w.pp != 0) {
    std::string found = std::to_string(p.microbatches);
    if (p.microbatches != w.ga) found += " (the embedding_layer lines, one per micro-batch, are not ga's " +
                                         std::to_string(w.ga) + ")";
    throw ConfigError(w.file + ":1: vpp: expected micro-batches (ga) a multiple of pp " + std::to_string(w.pp) +
                      " for Megatron's interleaved schedule (vpp " + std::to_string(w.vpp) + "), found " + found);
  }
  p.bounds = chunk_bounds(w, p.bounds, p.chunks);
  return p;
}

SimaiSchedule::SimaiSchedule(const SimaiWorkload& w, int stage)
    : pipe_(simai_pipeline(w)),
      pp_(w.pp),
      stage_(stage),
      steps_(pipe_.piped ? w.pp : 1, pipe_.piped ? stage : 0, pipe_.microbatches, pipe_.chunks) {
  prologue_ = pipe_.piped && pipe_.lead_end > 0;
  segments_ = pipe_.piped ? steps_.steps() + (prologue_ ? 2 : 0) : 2 * pipe_.microbatches;
}

SimaiSegment SimaiSchedule::segment(int i) const {
  SimaiSegment s;
  if (!pipe_.piped) {  // every block forward, then every block backward, last first
    const int m = pipe_.microbatches;
    s.forward = i < m;
    s.microbatch = s.forward ? i : 2 * m - 1 - i;
    s.begin = pipe_.bounds[static_cast<std::size_t>(s.microbatch)];
    s.end = pipe_.bounds[static_cast<std::size_t>(s.microbatch) + 1];
    return s;
  }
  if (prologue_ && (i == 0 || i == segments_ - 1)) {
    s.forward = i == 0;
    s.end = pipe_.lead_end;
    return s;
  }
  return step_segment(steps_.step(i - (prologue_ ? 1 : 0)));
}

SimaiSegment SimaiSchedule::step_segment(const ScheduleStep& step) const {
  SimaiSegment s;
  const auto k = static_cast<std::size_t>(step.microbatch * pipe_.chunks + step.chunk);
  s.forward = step.forward;
  s.begin = pipe_.bounds[k];
  s.end = pipe_.bounds[k + 1];
  s.microbatch = step.microbatch;
  s.chunk = step.chunk;
  // Virtual stage v = chunk * pp + stage: v - 1 and v + 1 are on the neighbouring
  // stages, wrapping from the last stage to stage 0 between chunks.
  const int v = step.chunk * pp_ + stage_, last = pp_ * pipe_.chunks - 1;
  const int prev = (stage_ + pp_ - 1) % pp_, next = (stage_ + 1) % pp_;
  const int from = step.forward ? v - 1 : v + 1, to = step.forward ? v + 1 : v - 1;
  s.recv = from >= 0 && from <= last;
  s.send = to >= 0 && to <= last;
  s.recv_stage = step.forward ? prev : next;
  s.send_stage = step.forward ? next : prev;
  s.recv_tag = tag(step.microbatch, v, step.forward);
  s.send_tag = s.send ? tag(step.microbatch, to, step.forward) : 0;
  return s;
}

// Names the message: micro-batch, receiving virtual stage, direction.
std::uint32_t SimaiSchedule::tag(int microbatch, int receiver, bool forward) const {
  return static_cast<std::uint32_t>((microbatch * pp_ * pipe_.chunks + receiver) * 2 + (forward ? 0 : 1));
}

}  // namespace pf::models::workload
