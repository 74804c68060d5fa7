// A scratch directory created by rank 0 and known to every rank; removed by
// rank 0 when the test ends.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

#include "core/communicator.h"

namespace pf::timeline::testing {

class MpiTempDir {
 public:
  explicit MpiTempDir(const core::Communicator& comm) : comm_(comm) {
    std::string path;
    if (comm.rank() == 0) {
      std::string pattern = (std::filesystem::temp_directory_path() / "pf_timeline_XXXXXX").string();
      if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
      path = pattern;
    }
    path_ = comm.all_gather(path).front();
  }
  ~MpiTempDir() {
    comm_.barrier();
    if (comm_.rank() == 0) {
      std::error_code ec;
      std::filesystem::remove_all(path_, ec);
    }
  }
  MpiTempDir(const MpiTempDir&) = delete;
  MpiTempDir& operator=(const MpiTempDir&) = delete;

  std::string path(const std::string& name = "") const { return name.empty() ? path_ : path_ + "/" + name; }

 private:
  const core::Communicator& comm_;
  std::string path_;
};

}  // namespace pf::timeline::testing
