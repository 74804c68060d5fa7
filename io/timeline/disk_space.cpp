#include "io/timeline/disk_space.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "io/timeline/packed_event.h"
#include "io/timeline/timeline_error.h"

namespace pf::timeline {

namespace {

constexpr std::uint64_t kMetadataAllowance = 1 << 20;  // superblock, groups, attribute headers, heaps
constexpr std::uint64_t kPerChunkAllowance = 256;      // chunk B-tree entry and deflate's worst-case growth

std::uint64_t string_bytes(const std::vector<std::string>& names) {
  std::uint64_t bytes = 0;
  for (const std::string& s : names) bytes += s.size() + 16;
  return bytes;
}

std::uint64_t summary_bytes(const std::vector<SummaryAttribute>& summary) {
  std::uint64_t bytes = 0;
  for (const SummaryAttribute& a : summary) {
    bytes += a.name.size() + 64;
    if (const auto* s = std::get_if<std::string>(&a.value)) bytes += s->size();
    if (const auto* v = std::get_if<std::vector<double>>(&a.value)) bytes += v->size() * sizeof(double);
  }
  return bytes;
}

std::string megabytes(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return text;
}

// A file descriptor closed on scope exit.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::uint64_t timeline_size_bound(const TimelineContent& content, std::uint64_t event_rows, std::uint64_t link_rows,
                                  std::uint64_t summary_rows, std::uint64_t chunk_rows) {
  const std::uint64_t chunks = chunk_rows == 0 ? event_rows : (event_rows + chunk_rows - 1) / chunk_rows;
  return kMetadataAllowance + event_rows * packed::size + chunks * kPerChunkAllowance +
         link_rows * sizeof(LinkRow) + summary_rows * sizeof(GpuSummaryRow) +
         content.meta.partition.size() * sizeof(std::uint32_t) + string_bytes(content.kinds) +
         string_bytes(content.groups) + string_bytes(content.link_classes) + string_bytes(content.vertices) +
         summary_bytes(content.summary) + content.config_yaml.size();
}

std::uint64_t available_bytes(const std::filesystem::path& dir) {
  struct statvfs fs {};
  if (::statvfs(dir.empty() ? "." : dir.c_str(), &fs) != 0) return UINT64_MAX;
  return static_cast<std::uint64_t>(fs.f_bavail) * fs.f_frsize;
}

std::uint64_t reservation_for(const std::filesystem::path& dir, const std::filesystem::path& file, std::uint64_t bound) {
  const std::uint64_t available = available_bytes(dir);
  if (available == UINT64_MAX) return bound;
  if (available < kMetadataAllowance)
    throw TimelineOutputError("no space for " + file.string() + ": the file system has " + megabytes(available) +
                              " free (the timeline needs up to " + megabytes(bound) + ")");
  return std::min(bound, available / 10 * 9);
}

std::string free_space_note(const std::filesystem::path& dir) {
  const std::uint64_t available = available_bytes(dir);
  if (available == UINT64_MAX || available > (std::uint64_t{64} << 20)) return "";
  return " (the file system holding " + (dir.empty() ? std::string(".") : dir.string()) + " has " +
         megabytes(available) + " free)";
}

bool reserve_space(const std::filesystem::path& file, std::uint64_t bytes) {
  const Fd fd(::open(file.c_str(), O_WRONLY | O_CLOEXEC));
  if (fd.get() < 0) throw TimelineOutputError("cannot open " + file.string() + ": " + std::strerror(errno));
  if (::fallocate(fd.get(), FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(bytes)) == 0) return true;
  const int error = errno;
  if (error == EOPNOTSUPP || error == ENOSYS || error == EINVAL) return false;
  throw TimelineOutputError("cannot reserve " + megabytes(bytes) + " for " + file.string() + ": " +
                            std::strerror(error));
}

void release_reserved_space(const std::filesystem::path& file, std::uint64_t bytes) {
  const Fd fd(::open(file.c_str(), O_WRONLY | O_CLOEXEC));
  struct stat st {};
  if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0) return;
  if (static_cast<std::uint64_t>(st.st_size) >= bytes) return;
  // Truncating to the current size frees the blocks past the end (ext4, xfs,
  // tmpfs; punching a hole past the end does not on ext4).
  (void)::ftruncate(fd.get(), st.st_size);
}

void check_fully_written(const std::filesystem::path& file) {
  constexpr off_t kLargestGap = 64 << 10;  // HDF5 leaves no unwritten gap this large in a file it wrote whole
  const Fd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (fd.get() < 0 || ::fstat(fd.get(), &st) != 0) throw TimelineOutputError("cannot read back " + file.string());
  for (off_t at = 0; at < st.st_size;) {
    const off_t hole = ::lseek(fd.get(), at, SEEK_HOLE);
    if (hole < 0 || hole >= st.st_size) return;
    off_t data = ::lseek(fd.get(), hole, SEEK_DATA);
    if (data < 0) data = st.st_size;  // ENXIO: the hole runs to the end
    if (hole == 0 || data - hole >= kLargestGap)
      throw TimelineOutputError("the file system did not store all of " + file.string() + ": " +
                                std::to_string(data - hole) + " bytes at offset " + std::to_string(hole) +
                                " were never written (a write failed, e.g. the disk is full)");
    at = data;
  }
}

}  // namespace pf::timeline
