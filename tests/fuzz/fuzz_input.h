// Shared pieces of the fuzz harnesses (tests/fuzz/README.md): a scratch
// directory per process, writing one input to a file there, and the rule
// every harness applies to what the code under test throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace pf::fuzz {

// A directory of this process's own (created on first use, under $TMPDIR or
// /tmp). The readers take file names, so each input is written here first.
const std::string& scratch_dir();

// Writes `size` bytes to scratch_dir()/name and returns the path.
std::string write_scratch(const std::string& name, const std::uint8_t* data, std::size_t size);

// Runs `body`; a pf::Error (the project's "bad input, clear message" error)
// is the expected answer to a malformed input and is swallowed. Anything
// else escaping (std::out_of_range, a yaml-cpp exception, std::bad_alloc, ...)
// is a bug: it is printed and the process aborts, so the fuzzer keeps the
// input as a crash.
template <typename Body>
void expect_clean_failure(const char* harness, Body&& body);

}  // namespace pf::fuzz

#include "tests/fuzz/fuzz_input_impl.h"
