#include "io/timeline/column_file.h"

#include <filesystem>
#include <system_error>
#include <type_traits>

#include "io/timeline/hdf5_datasets.h"
#include "io/timeline/hdf5_handles.h"
#include "io/timeline/timeline_error.h"

namespace pf::timeline {
namespace {

// The parent group of "a/b/name" (created as needed) and "name".
h5::Handle parent_of(hid_t file, const std::string& path, std::string& name) {
  std::string parent = "/";
  std::size_t start = 0;
  for (std::size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', start)) {
    parent += path.substr(start, slash - start);
    if (H5Lexists(file, parent.c_str(), H5P_DEFAULT) <= 0)
      h5::group(H5Gcreate2(file, parent.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "cannot create group " + parent);
    parent += "/";
    start = slash + 1;
  }
  name = path.substr(start);
  return h5::group(H5Gopen2(file, parent.c_str(), H5P_DEFAULT), "cannot open group " + parent);
}

void write_column(hid_t file, const ColumnFile::Column& c) {
  std::string name;
  const h5::Handle parent = parent_of(file, c.path, name);
  std::visit(
      [&](const auto& v) {
        using T = typename std::decay_t<decltype(v)>::value_type;
        if constexpr (std::is_same_v<T, std::string>) {
          h5::write_string_table(parent, name, v, true);
        } else {
          const hid_t type = std::is_same_v<T, double> ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64;
          h5::write_rows(parent, name, type, type, v.data(), v.size(), true);
        }
      },
      c.values);
}

void write_matrix(hid_t file, const ColumnFile::Matrix& m) {
  std::string name;
  const h5::Handle parent = parent_of(file, m.path, name);
  const hsize_t dims[2] = {static_cast<hsize_t>(m.rows), static_cast<hsize_t>(m.cols)};
  const h5::Handle space = h5::dataspace(H5Screate_simple(2, dims, nullptr), m.path);
  std::visit(
      [&](const auto& v) {
        using T = typename std::decay_t<decltype(v)>::value_type;
        const hid_t type = std::is_same_v<T, double> ? H5T_NATIVE_DOUBLE : H5T_NATIVE_UINT32;
        const h5::Handle set =
            h5::dataset(H5Dcreate2(parent, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                        "cannot create dataset " + m.path);
        if (!v.empty())
          h5::check(H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()), "cannot write dataset " + m.path);
      },
      m.values);
}

}  // namespace

void write_column_file(const std::string& path, const ColumnFile& f) {
  namespace fs = std::filesystem;
  h5::silence_errors();
  const std::string temp = path + ".tmp";
  try {
    h5::Handle file = h5::file(H5Fcreate(temp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), "cannot create " + temp);
    for (const SummaryAttribute& a : f.attributes) h5::write_attribute(file, a.name, a.value);
    for (const ColumnFile::Column& c : f.columns) write_column(file, c);
    for (const ColumnFile::Matrix& m : f.matrices) write_matrix(file, m);
    h5::check(file.close(), "cannot write " + temp);
  } catch (...) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw;
  }
  std::error_code ec;
  fs::rename(temp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw TimelineOutputError("cannot rename " + temp + " to " + path + ": " + ec.message());
  }
}

}  // namespace pf::timeline
