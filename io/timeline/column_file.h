// A small HDF5 file of named columns and matrices with attributes on its
// root, written whole by one process: the parallelism profile
// (`preflight run --profile-parallelism FILE`, io/run/parallelism_profile.h).
// Written to FILE.tmp and renamed, so a failed write never leaves a file that
// looks complete.
//
//   ColumnFile f;
//   f.attributes.push_back({"ranks", std::int64_t{1}});
//   f.columns.push_back({"projection/ranks", std::vector<std::int64_t>{2, 4}});
//   f.matrices.push_back({"windows/events", windows, ranks, data});
//   write_column_file(path, f);     // throws TimelineOutputError
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "io/timeline/timeline_content.h"

namespace pf::timeline {

struct ColumnFile {
  struct Column {
    std::string path;  // "group/name": the group is created as needed
    std::variant<std::vector<double>, std::vector<std::int64_t>, std::vector<std::string>> values;
  };
  struct Matrix {  // rows x cols, row-major
    std::string path;
    std::size_t rows = 0, cols = 0;
    std::variant<std::vector<std::uint32_t>, std::vector<double>> values;
  };
  std::vector<SummaryAttribute> attributes;  // on "/"
  std::vector<Column> columns;
  std::vector<Matrix> matrices;
};

void write_column_file(const std::string& path, const ColumnFile& file);

}  // namespace pf::timeline
