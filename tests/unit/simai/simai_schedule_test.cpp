// Imported pipelines cut for Megatron's schedules (simai_schedule.h): the chunk
// split of SimAI's own 9,216-GPU example (which no one here wrote), the
// interleaved p2p routing between its 12 stages, and the errors for files that
// cannot be interleaved.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>

#include "core/error.h"
#include "io/simai/simai_reader.h"
#include "models/workload/simai_program.h"
#include "models/workload/simai_schedule.h"
#include "models/workload/rank_layout.h"

namespace pf::models::workload {
namespace {

const std::string kDir = std::string(PF_SOURCE_ROOT) + "/configs/workloads/simai/";

const SimaiWorkload& moe() {
  static const SimaiWorkload w = io::read_simai_file(kDir + "moe_9216gpu_example.txt");
  return w;
}

// moe_9216gpu_example.txt: 6 gradient-sync lines, then 24 blocks of
// embedding_layer, 8 x (attention_column, attention_row, 7 mlp_moelayer),
// final_column; the last block ends with cross_entropy and optimizer lines.
TEST(SimaiSchedule, SplitsTheMoeExampleIntoOneLayerPerChunk) {
  const SimaiWorkload& w = moe();
  const SimaiPipeline p = simai_pipeline(w);
  EXPECT_TRUE(p.piped);
  EXPECT_EQ(p.microbatches, 24);
  EXPECT_EQ(p.chunks, 8);
  EXPECT_EQ(p.lead_end, 6u);
  ASSERT_EQ(p.bounds.size(), 24u * 8 + 1);
  EXPECT_EQ(p.bounds.front(), 6u);
  EXPECT_EQ(p.bounds.back(), w.layers.size());
  for (int mb = 0; mb < 24; ++mb) {
    const auto block = static_cast<std::size_t>(mb) * 8;
    // Block of 1 + 8 * 9 + 1 lines from line 6 + 74 mb; chunk 0 has the embedding.
    EXPECT_EQ(p.bounds[block], 6u + 74u * static_cast<unsigned>(mb)) << mb;
    EXPECT_EQ(w.layers[p.bounds[block]].name, "embedding_layer") << mb;
    for (int c = 0; c < 8; ++c) {
      const std::uint32_t begin = p.bounds[block + static_cast<std::size_t>(c)];
      const std::uint32_t end = p.bounds[block + static_cast<std::size_t>(c) + 1];
      const std::uint32_t layer = begin + (c == 0 ? 1 : 0);  // the chunk's one layer
      EXPECT_EQ(w.layers[layer].name, "attention_column") << mb << "." << c;
      EXPECT_EQ(w.layers[layer + 1].name, "attention_row") << mb << "." << c;
      for (std::uint32_t i = layer + 2; i < layer + 9; ++i) EXPECT_EQ(w.layers[i].name, "mlp_moelayer");
      // The last chunk carries final_column (and, in the last block, the loss and optimizer lines).
      const std::uint32_t expected_end = c < 7 ? layer + 9 : (mb < 23 ? layer + 10 : 1789u);
      EXPECT_EQ(end, expected_end) << mb << "." << c;
    }
  }
}

// Every send of every stage pairs with one receive: same tag, each naming the
// other, forward and backward; chunk c of the last stage feeds chunk c + 1 of
// stage 0 of the same micro-batch.
TEST(SimaiSchedule, InterleavedTransfersPairUpAcrossTheTwelveStages) {
  const SimaiWorkload& w = moe();
  using Key = std::tuple<int, int, std::uint32_t>;  // sender stage, receiver stage, tag
  std::map<Key, SimaiSegment> sends, recvs;
  int iteration_level = 0;
  for (int stage = 0; stage < 12; ++stage) {
    const SimaiSchedule s(w, stage);
    ASSERT_EQ(s.segments(), 2 * 24 * 8 + 2);  // the steps, plus the gradient-sync lines before and after
    for (int i = 0; i < s.segments(); ++i) {
      const SimaiSegment g = s.segment(i);
      if (g.microbatch < 0) {
        EXPECT_TRUE(i == 0 || i == s.segments() - 1);
        EXPECT_EQ(g.forward, i == 0);
        EXPECT_EQ(g.end, 6u);
        EXPECT_FALSE(g.recv || g.send);
        ++iteration_level;
        continue;
      }
      if (g.send) {
        EXPECT_TRUE(sends.emplace(Key{stage, g.send_stage, g.send_tag}, g).second);
      }
      if (g.recv) {
        EXPECT_TRUE(recvs.emplace(Key{g.recv_stage, stage, g.recv_tag}, g).second);
      }
      // Only the model's ends (chunk 0 of stage 0, the last chunk of the last stage) skip a transfer.
      const bool first = stage == 0 && g.chunk == 0, last = stage == 11 && g.chunk == 7;
      EXPECT_EQ(g.recv, g.forward ? !first : !last);
      EXPECT_EQ(g.send, g.forward ? !last : !first);
    }
  }
  EXPECT_EQ(iteration_level, 24);
  EXPECT_EQ(sends.size(), 2u * 24 * (12 * 8 - 1));
  ASSERT_EQ(sends.size(), recvs.size());
  for (const auto& [key, send] : sends) {
    const auto it = recvs.find(key);
    ASSERT_NE(it, recvs.end());
    const SimaiSegment& recv = it->second;
    EXPECT_EQ(send.forward, recv.forward);
    EXPECT_EQ(send.microbatch, recv.microbatch);
    const int sender = std::get<0>(key), receiver = std::get<1>(key);
    EXPECT_EQ(receiver, (sender + (send.forward ? 1 : 11)) % 12);
    int chunk_step = 0;
    if (send.forward && sender == 11) chunk_step = 1;
    if (!send.forward && sender == 0) chunk_step = -1;
    EXPECT_EQ(recv.chunk, send.chunk + chunk_step);
  }
}

TEST(SimaiSchedule, FilesWithoutPipelineTransfersKeepTheirOrder) {
  const SimaiWorkload w = io::read_simai_file(kDir + "G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt");
  const SimaiSchedule s(w, 0);
  ASSERT_EQ(s.segments(), 2);  // one block, forward then backward, every line
  for (int i = 0; i < 2; ++i) {
    const SimaiSegment g = s.segment(i);
    EXPECT_EQ(g.forward, i == 0);
    EXPECT_EQ(g.begin, 0u);
    EXPECT_EQ(g.end, w.layers.size());
    EXPECT_FALSE(g.recv || g.send);
  }
}

std::string error_of(const std::string& text) {
  try {
    simai_pipeline(io::parse_simai(text, "w.txt"));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

// Two micro-batches of `layers` layers (attention_column + mlp_layer each).
std::string file(const std::string& header, int layers) {
  std::string lines;
  for (int mb = 0; mb < 2; ++mb) {
    lines += "embedding_layer -1 10 NONE 0 10 NONE 0 10 NONE 0 100\n";
    for (int l = 0; l < layers; ++l)
      lines += "attention_column -1 10 NONE 0 10 NONE 0 10 NONE 0 100\n"
               "mlp_layer -1 10 NONE 0 10 NONE 0 10 NONE 0 100\n";
  }
  return "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 1 " + header + " pp_comm 64\n" +
         std::to_string(2 * (1 + 2 * layers)) + "\n" + lines;
}

TEST(SimaiSchedule, InterleavingNeedsLayersAndMicroBatchesThatDivide) {
  EXPECT_EQ(error_of(file("pp: 2 vpp: 2 ga: 2", 3)),
            "w.txt:3: vpp: expected the transformer layers of the micro-batch from this line to line 9 (a layer "
            "starts at a line named attention*) to split into 2 equal chunks, found 3 layers");
  EXPECT_EQ(error_of(file("pp: 4 vpp: 2 ga: 2", 4)),
            "w.txt:1: vpp: expected micro-batches (ga) a multiple of pp 4 for Megatron's interleaved schedule "
            "(vpp 2), found 2");
  EXPECT_EQ(error_of(file("pp: 2 vpp: 2 ga: 3", 4)),
            "w.txt:1: vpp: expected micro-batches (ga) a multiple of pp 2 for Megatron's interleaved schedule "
            "(vpp 2), found 1 (the embedding_layer lines, one per micro-batch, are not ga's 3)");
  // The same files split when they divide: 4 layers in 2 chunks of 2, from a layer start.
  const SimaiPipeline p = simai_pipeline(io::parse_simai(file("pp: 2 vpp: 2 ga: 2", 4), "w.txt"));
  ASSERT_EQ(p.bounds.size(), 5u);
  EXPECT_EQ(p.bounds[0], 0u);
  EXPECT_EQ(p.bounds[1], 5u);  // embedding + 2 layers of 2 lines
  EXPECT_EQ(p.bounds[2], 9u);
  EXPECT_EQ(p.bounds[3], 14u);
  EXPECT_EQ(p.bounds[4], 18u);
  // vpp = 1 and pp = 1 files never need it.
  EXPECT_EQ(error_of(file("pp: 2 ga: 2", 3)), "no error");
  EXPECT_EQ(error_of(file("vpp: 2 ga: 2", 3)), "no error");
  // And the layout check (run before any GPU's program) reports it.
  EXPECT_THROW(simai_parallelism(io::parse_simai(file("pp: 2 vpp: 2 ga: 2", 3), "w.txt"), 2), ConfigError);
}

// progress() (the run's progress line) climbs from 0 to 1 over the ops of
// an imported program, never backwards, with ops issued in both halves: the
// piped MoE example and a one-stage HYBRID file (segments) and a MICRO file
// (lines).
TEST(SimaiProgramProgress, ClimbsFromZeroToOne) {
  for (const auto& [file, gpus] : {std::pair<std::string, int>{"moe_9216gpu_example.txt", 9216},
                                   std::pair<std::string, int>{"muti_all_reduce.txt", 8},
                                   std::pair<std::string, int>{"all_reduce.txt", 8}}) {
    const SimaiWorkload w = io::read_simai_file(kDir + file);
    const RankLayout layout(simai_parallelism(w, gpus));
    SimaiProgram p(w, layout, 0);
    EXPECT_EQ(p.progress(), 0.0) << file;
    double last = 0;
    int ops = 0, below_half = 0;
    for (Op op; p.next(op);) {
      ASSERT_GE(p.progress(), last) << file << " op " << op.id;
      last = p.progress();
      ++ops;
      below_half += last < 0.5 ? 1 : 0;
    }
    EXPECT_EQ(p.progress(), 1.0) << file;
    EXPECT_GT(below_half, ops / 10) << file << ": " << ops << " ops";
    EXPECT_LT(below_half, ops - ops / 10) << file << ": " << ops << " ops";
  }
}

}  // namespace
}  // namespace pf::models::workload
