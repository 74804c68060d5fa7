// SHA-256 (FIPS 180-4) as lowercase hex: the report's config_sha256 is the
// digest of the merged configuration YAML, so two reports with equal hashes
// came from the same configuration. Computed with OpenSSL's libcrypto rather
// than a hand-written hash.
#pragma once

#include <string>
#include <string_view>

namespace pf::report {

// 64 lowercase hex digits. Throws pf::SimulationError if libcrypto fails.
std::string sha256_hex(std::string_view data);

}  // namespace pf::report
