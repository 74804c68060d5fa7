// printf into a std::string, for the small text tables of the report and the
// sweep (clarity over speed).
#pragma once

#include <string>

namespace pf::report {

[[gnu::format(printf, 1, 2)]] std::string format(const char* fmt, ...);

}  // namespace pf::report
