#include "io/cli/presets.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "core/error.h"

namespace pf::cli {

namespace fs = std::filesystem;

std::string find_configs_dir() {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("PREFLIGHT_CONFIGS"); env && *env) candidates.emplace_back(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) candidates.push_back(exe.parent_path().parent_path() / "share" / "preflight" / "configs");
  candidates.emplace_back(PREFLIGHT_CONFIGS_DIR);
  for (const fs::path& c : candidates)
    if (fs::is_directory(c / "hardware", ec)) return fs::weakly_canonical(c, ec).string();
  return "";
}

void print_presets() {
  const std::string dir = find_configs_dir();
  if (dir.empty())
    throw ConfigError("--list-presets: no configs folder found (looked at $PREFLIGHT_CONFIGS, "
                      "share/preflight/configs beside the binary and " PREFLIGHT_CONFIGS_DIR ")");
  std::printf("presets in %s\n", dir.c_str());
  for (const char* part : {"hardware", "models", "topology", "examples"}) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(fs::path(dir) / part, ec))
      if (entry.path().extension() == ".yaml") names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    std::printf("%s:\n", part);
    for (const std::string& n : names) std::printf("  %s/%s/%s\n", dir.c_str(), part, n.c_str());
  }
  std::fflush(stdout);
}

}  // namespace pf::cli
