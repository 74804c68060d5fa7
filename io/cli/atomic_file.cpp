#include "io/cli/atomic_file.h"

#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace pf::cli {

void write_file_atomically(const std::string& path, const std::string& text, const char* what) {
  const std::filesystem::path p(path);
  std::error_code ec;
  if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp);
    out << text;
    if (!out) throw ConfigError(std::string(what) + ": cannot write " + path);
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw ConfigError(std::string(what) + ": cannot write " + path + " (" + ec.message() + ")");
}

}  // namespace pf::cli
