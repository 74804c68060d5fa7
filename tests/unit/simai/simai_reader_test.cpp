// The SimAI/AICB reader on the real files in configs/workloads/simai (which
// no one here wrote) and on malformed text: every error names file and line.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/error.h"
#include "io/simai/simai_reader.h"
#include "models/workload/simai_program.h"

namespace pf::io {
namespace {

using models::workload::Collective;
using models::workload::GroupKind;
using models::workload::SimaiPolicy;

const std::string kDir = std::string(PF_SOURCE_ROOT) + "/configs/workloads/simai/";

TEST(SimaiReader, ReadsTheMegatronGpt13bFile) {
  const auto w = read_simai_file(kDir + "G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100.txt");
  EXPECT_EQ(w.policy, SimaiPolicy::transformer);
  EXPECT_EQ(w.tp, 8);
  EXPECT_EQ(w.pp, 1);
  ASSERT_EQ(w.layers.size(), 92u);
  // grad_norm: forward all-gather in TP, weight-gradient reduce-scatter in DP.
  const auto& g = w.layers[1];
  EXPECT_EQ(g.name, "grad_norm");
  EXPECT_EQ(g.line, 4);
  EXPECT_EQ(g.fwd_ns, 14565000);
  EXPECT_EQ(g.fwd.op, Collective::all_gather);
  EXPECT_EQ(g.fwd.group, GroupKind::tp);
  EXPECT_EQ(g.fwd.bytes, 3248619520u);
  EXPECT_EQ(g.weight_grad.op, Collective::reduce_scatter);
  EXPECT_EQ(g.weight_grad.group, GroupKind::dp);
  // The first line's BROADCAST is ignored, as SimAI ignores it.
  EXPECT_EQ(w.layers[0].fwd.op, Collective::none);
  int attention = 0;
  for (const auto& l : w.layers) attention += l.name == "attention_layer";
  EXPECT_EQ(attention, 40);
}

TEST(SimaiReader, ReadsTheMoeHeaderAndGroupSuffixes) {
  const auto w = read_simai_file(kDir + "moe_9216gpu_example.txt");
  EXPECT_EQ(w.tp, 2);
  EXPECT_EQ(w.ep, 16);
  EXPECT_EQ(w.pp, 12);
  EXPECT_EQ(w.vpp, 8);
  EXPECT_EQ(w.ga, 24);
  EXPECT_EQ(w.all_gpus, 9216);
  EXPECT_EQ(w.pp_comm_bytes, 50331648u);
  ASSERT_EQ(w.layers.size(), 1789u);
  EXPECT_EQ(w.layers[4].weight_grad.group, GroupKind::edp);  // moe_grad_norm1 ALLGATHER_DP_EP
  bool ep = false;
  for (const auto& l : w.layers) ep = ep || l.fwd.group == GroupKind::ep;
  EXPECT_TRUE(ep);
  // AICB unrolled the 24 micro-batches: one embedding_layer line each.
  EXPECT_EQ(models::workload::simai_microbatch_starts(w).size(), 24u);
}

TEST(SimaiReader, ReadsMicroBenchmarks) {
  for (const char* f : {"all_reduce.txt", "all_gather.txt", "all_to_all.txt"}) {
    const auto w = read_simai_file(kDir + f);
    EXPECT_EQ(w.policy, SimaiPolicy::micro) << f;
    ASSERT_EQ(w.layers.size(), 19u) << f;
    EXPECT_EQ(w.layers.front().weight_grad.bytes, 4096u) << f;
    EXPECT_EQ(w.layers.back().weight_grad.bytes, 1073741824u) << f;
  }
}

TEST(SimaiReader, EveryFileInTheSharedFolderParses) {
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kDir)) {
    if (entry.path().extension() != ".txt") continue;
    EXPECT_NO_THROW(read_simai_file(entry.path().string())) << entry.path();
    ++files;
  }
  EXPECT_GE(files, 7);
}

std::string error_of(const std::string& text) {
  try {
    parse_simai(text, "w.txt");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

const std::string kHeader = "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2\n";
const std::string kLine = "l -1 10 ALLREDUCE 64 10 NONE 0 10 ALLREDUCE 64 1\n";

TEST(SimaiReader, MalformedFilesNameLineAndExpectation) {
  EXPECT_EQ(error_of(""), "w.txt:1: header: expected a header line, found 'an empty file'");
  EXPECT_EQ(error_of("DLRM_THING\n1\n" + kLine),
            "w.txt:1: parallelism policy: expected HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_TRANSFORMER or MICRO, "
            "found 'DLRM_THING'");
  EXPECT_EQ(error_of(kHeader + "two\n"), "w.txt:2: layer count: expected an integer >= 0, found 'two'");
  EXPECT_EQ(error_of(kHeader + "1\nl -1 10 ALLREDUCE 64\n"),
            "w.txt:3: layer line: expected 12 fields (name, dependency, fwd ns, fwd type, fwd bytes, input-grad ns, "
            "type, bytes, weight-grad ns, type, bytes, update ns), found '5 fields'");
  EXPECT_EQ(error_of(kHeader + "1\nl -1 10 ALLSUM 64 10 NONE 0 10 NONE 0 1\n"),
            "w.txt:3: forward comm type: expected NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL, "
            "ALLREDUCEALLTOALL or BROADCAST, optionally _EP or _DP_EP, found 'ALLSUM'");
  EXPECT_EQ(error_of(kHeader + "1\nl -1 -5 NONE 0 10 NONE 0 10 NONE 0 1\n"),
            "w.txt:3: forward compute ns: expected an integer >= 0, found '-5'");
  EXPECT_EQ(error_of(kHeader + "2\n" + kLine), "w.txt:4: layer lines: expected 2 as line 2 says, found '1'");
  EXPECT_EQ(error_of(kHeader + "1\n" + kLine + kLine),
            "w.txt:4: layer lines: expected 1 lines as line 2 says, found 'one more'");
  EXPECT_EQ(error_of("HYBRID_TRANSFORMER ep:\n0\n"), "w.txt:1: ep:: expected a value after it, found nothing");
}

TEST(SimaiReader, ParallelLayoutFromTheHeader) {
  const auto w = parse_simai("HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 2 pp: 2\n1\n" + kLine, "w.txt");
  const auto p = models::workload::simai_parallelism(w, 16);
  EXPECT_EQ(p.tp, 2);
  EXPECT_EQ(p.pp, 2);
  EXPECT_EQ(p.dp, 4);
  EXPECT_EQ(p.ep, 2);
  EXPECT_THROW(models::workload::simai_parallelism(w, 6), ConfigError);  // 2 x 2 does not divide 6
}

}  // namespace
}  // namespace pf::io
