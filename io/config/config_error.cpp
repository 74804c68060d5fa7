#include "io/config/config_error.h"

namespace pf::config {

void fail_at(const ConfigNode& node, const std::string& message) {
  throw ConfigError(node.where() + ": " + message);
}

void fail_expected(const ConfigNode& node, const std::string& expected) {
  fail_expected(node, expected, node.describe());
}

void fail_expected(const ConfigNode& node, const std::string& expected, const std::string& found) {
  fail_at(node, "expected " + expected + ", found " + found);
}

}  // namespace pf::config
