// Fuzz harness: the measured-kernel CSV reader (models/compute
// calibration_table), as `preflight calibrate` and a preset's
// gpu.calibration reach it. The first input byte picks the file name (which
// fixes the dtype), the rest is the file; seeds are the heads of the shipped
// tables (tests/fuzz/corpus/calibration).
#include <array>
#include <cstdint>
#include <string>

#include "models/compute/calibration_table.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

constexpr std::array<const char*, 4> kNames{"gemm_bf16.csv", "attention_fp16.csv", "rmsnorm.csv", "gemm_fp8.csv"};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string path = pf::fuzz::write_scratch(kNames[data[0] % kNames.size()], data + 1, size - 1);
  pf::fuzz::expect_clean_failure("fuzz_calibration", [&] { (void)pf::models::read_calibration_csv(path); });
  return 0;
}
