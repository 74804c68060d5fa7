#include "io/config/workload_parser.h"

#include <filesystem>

#include "io/config/config_error.h"
#include "io/config/map_reader.h"
#include "io/config/part_references.h"

namespace pf::config {

std::string parse_workload(const ConfigNode& node) {
  MapReader r(node);
  const ConfigNode& simai = r.require("simai", "the path of a SimAI/AICB workload file");
  r.finish();
  if (!simai.is_scalar()) fail_expected(simai, "the path of a SimAI/AICB workload file");
  const std::filesystem::path file = resolve_path(simai);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    fail_expected(simai, "the path of an existing SimAI/AICB workload file",
                  "'" + simai.text() + "' (no such file: " + file.string() + ")");
  }
  return file.string();
}

}  // namespace pf::config
