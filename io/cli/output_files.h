// How the commands write their output files (io/cli/README.md, "Output files"):
// probed before any simulation starts, written under FILE.tmp and renamed, so
// that a file under its final name is always complete, and a failure on the
// writing rank is a failure on every rank (nobody waits in a collective for a
// rank that has given up).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/communicator.h"

namespace pf::cli {

// An output the command will write: the file and the option or key that named
// it (for messages: "--csv: cannot write out/x.csv: Permission denied").
struct OutputFile {
  std::string path;
  std::string what;
};

// A file written now under PATH.tmp and published as PATH by commit(); one
// not committed is removed when the object goes (so that outputs written
// together, a report and its timeline, appear together or not at all).
// Creating the parent folder or writing (a full disk included) failing throws
// pf::ConfigError "<what>: cannot write PATH: <cause>" and leaves no PATH.tmp;
// PATH is left as it was until commit().
class StagedFile {
 public:
  StagedFile(std::string path, const std::string& text, std::string what);
  ~StagedFile();
  StagedFile(StagedFile&& other) noexcept;
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;
  StagedFile& operator=(StagedFile&&) = delete;
  void commit();

 private:
  std::string path_, what_;
  bool pending_ = false;
};

// StagedFile(path, text, what).commit().
void write_file_atomically(const std::string& path, const std::string& text, const char* what);

// Checks that each file can be written, before the work that produces it:
// creates its parent folder, creates and removes PATH.tmp. Throws
// pf::ConfigError "<what>: cannot write PATH: <cause>" for the first that
// cannot. Empty paths are skipped.
void probe_output_files(const std::vector<OutputFile>& files);

// Whether two paths name the same file (after resolving ".", ".." and links
// of the parts that exist): two outputs staged under one path would race.
bool same_output_path(const std::string& a, const std::string& b);

// Runs `work` on rank 0 of `world` only; every rank then returns, or every
// rank throws rank 0's pf::Error (a ConfigError for exit status 2, so main()
// prints it once; a SimulationError otherwise). Collective.
void run_on_root_agreed(const core::Communicator& world, const std::function<void()>& work);

}  // namespace pf::cli
