// Where the shipped presets are, for `preflight --list-presets`: an installed
// binary finds share/preflight/configs beside it, a build-tree binary the
// repository's configs/ (PREFLIGHT_CONFIGS overrides both).
#pragma once

#include <string>

namespace pf::cli {

// The configs folder, or "" when none is found.
std::string find_configs_dir();

// Prints the folder and every hardware, model, topology and example file in it.
void print_presets();

}  // namespace pf::cli
