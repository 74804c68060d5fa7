// How io/config reports a bad value: one line, "WHERE: expected WHAT, found WHAT"
// (io/cli/README.md), thrown as pf::ConfigError (exit status 2).
#pragma once

#include <string>

#include "core/error.h"
#include "io/config/config_node.h"

namespace pf::config {

// "FILE:LINE: KEY.PATH: <message>"
[[noreturn]] void fail_at(const ConfigNode& node, const std::string& message);

// "FILE:LINE: KEY.PATH: expected <expected>, found <what the node holds>"
[[noreturn]] void fail_expected(const ConfigNode& node, const std::string& expected);

// "FILE:LINE: KEY.PATH: expected <expected>, found <found>" for derived values.
[[noreturn]] void fail_expected(const ConfigNode& node, const std::string& expected, const std::string& found);

}  // namespace pf::config
