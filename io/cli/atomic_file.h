// Output files of `run` and `sweep` are written under a temporary name and
// renamed, so a killed run never leaves a file that looks complete.
#pragma once

#include <string>

namespace pf::cli {

// Creates the parent folder; throws pf::ConfigError "<what>: cannot write PATH".
void write_file_atomically(const std::string& path, const std::string& text, const char* what);

}  // namespace pf::cli
