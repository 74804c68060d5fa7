// Measured kernel times read from CSV (format: models/compute/CALIBRATION.md).
// Each data row becomes the ComputeOp it measured plus its time, so the
// estimator computes features, FLOPs and bytes for table rows and for queries
// with the very same code.
#pragma once

#include <string>
#include <vector>

#include "models/compute/compute_op.h"
#include "models/spec/hardware_spec.h"

namespace pf::models {

// Which kernel family a table measured; fixed by its header row.
enum class KernelTableKind : std::uint8_t {
  gemm,       // M,N,K,t_measured_ms
  attention,  // bs,seq,nh,nkv,hd,t_measured_ms (forward, non-causal)
  rmsnorm,    // seq,dim,t_measured_ms (forward)
};

const char* to_string(KernelTableKind kind);

struct Measurement {
  ComputeOp op;        // forward op of the table's kind and dtype
  double seconds = 0;  // measured kernel time
  int line = 0;        // 1-based line in the source file, for messages
};

struct CalibrationTable {
  std::string source;  // file it was read from
  KernelTableKind kind = KernelTableKind::gemm;
  Dtype dtype = Dtype::fp16;
  std::vector<Measurement> rows;
  int unmeasured_rows = 0;  // rows whose time was the -1 "not measured" marker
  // Attention tables: the flash kernel that was timed (every row's op carries it).
  FlashKernel attention_kernel = FlashKernel::fused;
};

// Marks an attention table as measuring `kernel` (its rows' ops and the table).
void set_attention_kernel(CalibrationTable& table, FlashKernel kernel);

// Reads one table. The dtype comes from a token of the file name ("gemm_fp16.csv",
// "attention-bf16.csv"); a name without one gets `unnamed_dtype`. Throws
// pf::ConfigError naming the file, line, column, what was expected and what
// was found on any malformed row, and when the file cannot be read or has no
// measured row.
CalibrationTable read_calibration_csv(const std::string& path, Dtype unnamed_dtype = Dtype::fp16);

// A file, or a directory whose *.csv files are all read (in name order).
std::vector<CalibrationTable> load_calibration(const std::string& path, Dtype unnamed_dtype = Dtype::fp16);

}  // namespace pf::models
