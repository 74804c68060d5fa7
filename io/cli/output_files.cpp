#include "io/cli/output_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <utility>

#include "core/error.h"

namespace pf::cli {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void cannot_write(const std::string& what, const std::string& path, const std::string& cause) {
  throw ConfigError(what + ": cannot write " + path + ": " + cause);
}

void create_parent(const std::string& path, const std::string& what) {
  const fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec) cannot_write(what, path, "cannot create " + parent.string() + " (" + ec.message() + ")");
  if (!fs::is_directory(parent, ec)) cannot_write(what, path, parent.string() + " is not a directory");
}

// Writes and closes; the cause of a failure, or "" (the stream's errno).
std::string write_whole(const std::string& path, const std::string& text) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return std::strerror(errno ? errno : EIO);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.flush();
  const int write_errno = errno;
  out.close();  // the last buffered bytes reach the file system here
  if (!out) return std::strerror(write_errno ? write_errno : errno ? errno : EIO);
  return "";
}

}  // namespace

Destination destination_of(const std::string& path) {
  if (path == "-") return Destination::standard_output;
  struct stat target {};
  if (::stat(path.c_str(), &target) != 0) return Destination::staged;  // none yet (or unreachable: the probe says why)
  struct stat out {};
  if (::fstat(STDOUT_FILENO, &out) == 0 && out.st_dev == target.st_dev && out.st_ino == target.st_ino)
    return Destination::standard_output;
  if (S_ISREG(target.st_mode) || S_ISDIR(target.st_mode)) return Destination::staged;
  return Destination::in_place;
}

std::FILE* text_stream(std::initializer_list<std::string> outputs) {
  for (const std::string& path : outputs)
    if (!path.empty() && destination_of(path) == Destination::standard_output) return stderr;
  return stdout;
}

StagedFile::StagedFile(std::string path, const std::string& text, std::string what)
    : path_(std::move(path)), what_(std::move(what)), destination_(destination_of(path_)) {
  if (destination_ != Destination::staged) {
    held_text_ = text;
    pending_ = true;
    return;
  }
  create_parent(path_, what_);
  const std::string tmp = path_ + ".tmp";
  if (const std::string cause = write_whole(tmp, text); !cause.empty()) {
    std::error_code ec;
    fs::remove(tmp, ec);
    cannot_write(what_, path_, cause);
  }
  pending_ = true;
}

StagedFile::StagedFile(StagedFile&& other) noexcept
    : path_(std::move(other.path_)),
      what_(std::move(other.what_)),
      destination_(other.destination_),
      held_text_(std::move(other.held_text_)),
      pending_(std::exchange(other.pending_, false)) {}

StagedFile::~StagedFile() {
  if (!pending_ || destination_ != Destination::staged) return;
  std::error_code ec;
  fs::remove(path_ + ".tmp", ec);
}

void StagedFile::commit() {
  if (!pending_) return;
  if (destination_ == Destination::standard_output) {
    pending_ = false;
    std::fflush(stdout);
    errno = 0;
    std::fwrite(held_text_.data(), 1, held_text_.size(), stdout);
    if (std::fflush(stdout) != 0 || std::ferror(stdout)) cannot_write(what_, path_, std::strerror(errno ? errno : EIO));
    return;
  }
  if (destination_ == Destination::in_place) {
    pending_ = false;
    if (const std::string cause = write_whole(path_, held_text_); !cause.empty()) cannot_write(what_, path_, cause);
    return;
  }
  std::error_code ec;
  fs::rename(path_ + ".tmp", path_, ec);
  if (ec) cannot_write(what_, path_, ec.message());  // the destructor removes PATH.tmp
  pending_ = false;
}

void write_file_atomically(const std::string& path, const std::string& text, const char* what) {
  StagedFile(path, text, what).commit();
}

void probe_output_files(const std::vector<OutputFile>& files) {
  for (const OutputFile& f : files) {
    if (f.path.empty()) continue;
    const Destination d = destination_of(f.path);
    if (d == Destination::standard_output) continue;
    if (d == Destination::in_place) {
      if (::access(f.path.c_str(), W_OK) != 0) cannot_write(f.what, f.path, std::strerror(errno));
      continue;
    }
    create_parent(f.path, f.what);
    std::error_code ec;
    if (fs::is_directory(f.path, ec)) cannot_write(f.what, f.path, "it is a directory");
    const std::string tmp = f.path + ".tmp";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) cannot_write(f.what, f.path, std::strerror(errno));
    ::close(fd);
    fs::remove(tmp, ec);
  }
}

bool same_output_path(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  std::error_code ec;
  const fs::path pa = fs::weakly_canonical(fs::absolute(a, ec), ec);
  if (ec) return false;
  const fs::path pb = fs::weakly_canonical(fs::absolute(b, ec), ec);
  return !ec && pa == pb;
}

void run_on_root_agreed(const core::Communicator& world, const std::function<void()>& work) {
  std::string message;
  int status = 0;
  if (world.rank() == 0) {
    try {
      work();
    } catch (const Error& e) {
      message = e.what();
      status = e.exit_code() == 0 ? 1 : e.exit_code();
    }
  }
  status = static_cast<int>(world.max(static_cast<std::int64_t>(status)));
  if (status == 0) return;
  message = world.all_gather(message).front();
  if (status == 2) throw ConfigError(message);
  throw SimulationError(message);
}

}  // namespace pf::cli
