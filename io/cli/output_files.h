// How the commands write their output files (io/cli/README.md, "Output files"):
// probed before any simulation starts, written under FILE.tmp and renamed, so
// that a file under its final name is always complete (a destination that is
// a stream or device, /dev/stdout or a FIFO, is written as it is: a rename
// would replace the device node), and a failure on the
// writing rank is a failure on every rank (nobody waits in a collective for a
// rank that has given up).
#pragma once

#include <cstdio>
#include <functional>
#include <initializer_list>
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

// Where an output goes, which decides how it is written:
//  - staged: a regular file, or none yet: written under PATH.tmp and renamed;
//  - in_place: PATH exists, following links, as something other than a
//    regular file or a directory (a terminal, pipe, FIFO, socket, device:
//    /dev/null, /dev/full): opened and written as it is, since a rename
//    would replace the device node or link;
//  - standard_output: PATH is "-", or the very file this process's standard
//    output is (/dev/stdout, /proc/self/fd/1, or the file the shell
//    redirected stdout into): written through stdout after what it already
//    holds, never reopened (O_TRUNC would erase it).
enum class Destination { staged, in_place, standard_output };
Destination destination_of(const std::string& path);

// Where a command prints its text for people: stdout, or stderr where one of
// `outputs` is standard output (`--json - | jq` then reads the JSON alone).
std::FILE* text_stream(std::initializer_list<std::string> outputs);

// A file written now under PATH.tmp and published as PATH by commit(); one
// not committed is removed when the object goes (so that outputs written
// together, a report and its timeline, appear together or not at all).
// Creating the parent folder or writing (a full disk included) failing throws
// pf::ConfigError "<what>: cannot write PATH: <cause>" and leaves no PATH.tmp;
// PATH is left as it was until commit(). An in_place or standard_output
// destination holds the text and commit() writes it; a failed write there
// (ENOSPC on /dev/full) throws the same error.
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
  Destination destination_ = Destination::staged;
  std::string held_text_;  // what commit() writes where the destination is not staged
  bool pending_ = false;
};

// StagedFile(path, text, what).commit().
void write_file_atomically(const std::string& path, const std::string& text, const char* what);

// Checks that each file can be written, before the work that produces it:
// creates its parent folder, creates and removes PATH.tmp (an in_place
// destination is checked for write permission only: opening a FIFO with no
// reader would block; standard output is not checked). Throws
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
