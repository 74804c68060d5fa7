// io/timeline/disk_space.h on real files in a temporary directory: the hole
// check that keeps a file with lost writes from being published, the
// reservation and its release, and the size bound.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "io/timeline/disk_space.h"
#include "io/timeline/packed_event.h"
#include "io/timeline/timeline_error.h"

namespace pf::timeline {
namespace {

namespace fs = std::filesystem;

class DiskSpace : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("preflight-disk-space-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path file(const char* name, std::size_t dense_bytes) const {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << std::string(dense_bytes, 'x');
    return p;
  }
  static std::uint64_t allocated(const fs::path& p) {
    struct stat st {};
    EXPECT_EQ(::stat(p.c_str(), &st), 0);
    return static_cast<std::uint64_t>(st.st_blocks) * 512;
  }
  fs::path dir_;
};

TEST_F(DiskSpace, AFileWrittenWholeHasNoHole) {
  EXPECT_NO_THROW(check_fully_written(file("whole", 1 << 20)));
  EXPECT_NO_THROW(check_fully_written(file("empty", 0)));
}

TEST_F(DiskSpace, ALostBlockAtTheStartOrALargeGapInsideIsRefused) {
  // A file whose first 256 KiB were never written (its data only further on).
  const fs::path gap_at_start = dir_ / "gap-at-start";
  {
    const int fd = ::open(gap_at_start.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    const std::string data(4096, 'x');
    ASSERT_EQ(::pwrite(fd, data.data(), data.size(), 256 << 10), static_cast<ssize_t>(data.size()));
    ::close(fd);
  }
  const fs::path gap_inside = file("gap-inside", 4096);
  fs::resize_file(gap_inside, (1 << 20) + 4096);  // 1 MiB never written after the data...
  {
    std::ofstream(gap_inside, std::ios::binary | std::ios::app) << std::string(4096, 'y');  // ...then data again
  }
  for (const fs::path& p : {gap_at_start, gap_inside}) {
    if (allocated(p) >= fs::file_size(p)) GTEST_SKIP() << "this file system does not keep holes";
    EXPECT_THROW(check_fully_written(p), TimelineOutputError) << p;
  }
}

TEST_F(DiskSpace, TheReservationIsTakenAndGivenBack) {
  const fs::path p = file("reserved", 8192);
  if (!reserve_space(p, 8 << 20)) GTEST_SKIP() << "no fallocate on this file system";
  EXPECT_EQ(fs::file_size(p), 8192u) << "the reservation must not change the size";
  EXPECT_GE(allocated(p), std::uint64_t{8} << 20);
  release_reserved_space(p, 8 << 20);
  EXPECT_LT(allocated(p), std::uint64_t{1} << 20);
  EXPECT_EQ(fs::file_size(p), 8192u);
}

TEST_F(DiskSpace, TheBoundCoversEveryRowUncompressedAndGrowsWithRows) {
  TimelineContent content;
  content.config_yaml = std::string(5000, 'c');
  const std::uint64_t small = timeline_size_bound(content, 1000, 10, 8, 256);
  const std::uint64_t large = timeline_size_bound(content, 100000, 10, 8, 256);
  EXPECT_GE(small, 1000 * packed::size + 5000);
  EXPECT_GE(large - small, 99000 * packed::size);
}

TEST_F(DiskSpace, AReservationNeverAsksForMoreThanNineTenthsOfTheFreeSpace) {
  const std::uint64_t free_bytes = available_bytes(dir_);
  if (free_bytes == UINT64_MAX) GTEST_SKIP() << "statvfs gives nothing here";
  EXPECT_EQ(reservation_for(dir_, dir_ / "t.h5", 4096), 4096u);
  EXPECT_LE(reservation_for(dir_, dir_ / "t.h5", UINT64_MAX / 2), free_bytes / 10 * 9);
}

}  // namespace
}  // namespace pf::timeline
