// Fuzz harness: the experiment loader, as `preflight run/validate FILE
// --set K=V ...` reaches it (YAML reading, part references, overrides,
// every section parser and the cross-field checks).
//
// Input: leading lines "--set KEY=VALUE" are the overrides; the rest is the
// experiment file. It is written to <scratch>/examples/fuzz.yaml beside links
// to the repository's configs/ folders, so the shipped examples (the seed
// corpus) resolve "../hardware/..." exactly as they do in the tree.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "io/config/experiment_loader.h"
#include "tests/fuzz/fuzz_input.h"

namespace {

void link_configs() {
  namespace fs = std::filesystem;
  const fs::path configs(PF_FUZZ_CONFIGS_DIR);
  const fs::path scratch(pf::fuzz::scratch_dir());
  fs::create_directories(scratch / "examples");
  for (const char* part : {"hardware", "models", "topology", "workloads", "calibration"}) {
    std::error_code ec;
    fs::create_directory_symlink(configs / part, scratch / part, ec);
  }
}

// Splits the leading "--set " lines off the input.
std::vector<std::string> take_overrides(std::string_view& text) {
  std::vector<std::string> overrides;
  constexpr std::string_view kPrefix = "--set ";
  while (text.substr(0, kPrefix.size()) == kPrefix) {
    const std::size_t end = text.find('\n');
    overrides.emplace_back(text.substr(kPrefix.size(), end == std::string_view::npos ? text.npos : end - kPrefix.size()));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
  }
  return overrides;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  link_configs();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const std::vector<std::string> overrides = take_overrides(text);
  const std::string path = pf::fuzz::write_scratch("examples/fuzz.yaml", reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
  pf::fuzz::expect_clean_failure("fuzz_experiment", [&] { (void)pf::config::load_experiment(path, overrides); });
  return 0;
}
