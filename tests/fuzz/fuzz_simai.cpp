// Fuzz harness: the SimAI/AICB workload reader (io/simai) on arbitrary text;
// seeds are the shipped workload files (configs/workloads/simai).
#include <cstdint>
#include <string>

#include "io/simai/simai_reader.h"
#include "models/workload/simai_workload.h"
#include "tests/fuzz/fuzz_input.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  pf::fuzz::expect_clean_failure("fuzz_simai", [&] {
    const auto workload = pf::io::parse_simai(text, "fuzz.txt");
    // What the workload builder asks of every parsed file.
    (void)pf::models::workload::simai_microbatch_starts(workload);
  });
  return 0;
}
