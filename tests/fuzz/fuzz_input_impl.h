// Template part of fuzz_input.h.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>

#include "core/error.h"

namespace pf::fuzz {

template <typename Body>
void expect_clean_failure(const char* harness, Body&& body) {
  try {
    body();
  } catch (const pf::Error& e) {
    // Rejected with the project's own error: the wanted outcome for bad input.
    if (std::getenv("PF_FUZZ_VERBOSE")) std::fprintf(stderr, "%s: rejected: %s\n", harness, e.what());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: escaped exception (not pf::Error): %s\n", harness, e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "%s: escaped a non-std exception\n", harness);
    std::abort();
  }
}

}  // namespace pf::fuzz
