#include "io/timeline/hdf5_read.h"

#include <cstring>

#include "io/timeline/hdf5_types.h"
#include "io/timeline/timeline_error.h"

namespace pf::timeline::h5 {

namespace {

Handle open_dataset(hid_t parent, const std::string& name) {
  return dataset(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), "cannot open dataset " + name);
}

// A fixed-length string type of the dataset's width: the timeline writes no
// variable-length strings into datasets (parallel HDF5 cannot).
std::size_t fixed_string_width(hid_t set, const std::string& name) {
  const Handle type = datatype(H5Dget_type(set), name);
  if (H5Tget_class(type) != H5T_STRING || H5Tis_variable_str(type) != 0)
    throw TimelineOutputError(name + " is not a fixed-length string dataset");
  return H5Tget_size(type);
}

}  // namespace

std::uint64_t row_count(hid_t parent, const std::string& name) {
  const Handle set = open_dataset(parent, name);
  const Handle space = dataspace(H5Dget_space(set), name);
  if (H5Sget_simple_extent_ndims(space) != 1) throw TimelineOutputError(name + " is not one-dimensional");
  hsize_t dims[1] = {0};
  H5Sget_simple_extent_dims(space, dims, nullptr);
  return dims[0];
}

void read_rows(hid_t parent, const std::string& name, hid_t memory_type, void* out) {
  const Handle set = open_dataset(parent, name);
  check(H5Dread(set, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out), "cannot read " + name);
}

std::vector<std::string> read_string_table(hid_t parent, const std::string& name) {
  const Handle set = open_dataset(parent, name);
  const std::size_t width = fixed_string_width(set, name);
  const std::uint64_t rows = row_count(parent, name);
  std::vector<char> buffer(rows * width + 1, '\0');
  const Handle type = fixed_string_type(width);
  if (rows > 0) check(H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()), "cannot read " + name);
  std::vector<std::string> out;
  out.reserve(rows);
  for (std::uint64_t i = 0; i < rows; ++i) {
    const char* s = &buffer[i * width];
    out.emplace_back(s, strnlen(s, width));
  }
  return out;
}

std::string read_text(hid_t parent, const std::string& name) {
  const Handle set = open_dataset(parent, name);
  const std::size_t width = fixed_string_width(set, name);
  std::string text(width, '\0');
  const Handle type = fixed_string_type(width);
  check(H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()), "cannot read " + name);
  text.resize(strnlen(text.c_str(), width));
  return text;
}

bool has_attribute(hid_t object, const std::string& name) { return H5Aexists(object, name.c_str()) > 0; }

std::int64_t read_int_attribute(hid_t object, const std::string& name) {
  const Handle attr = attribute(H5Aopen(object, name.c_str(), H5P_DEFAULT), "missing attribute " + name);
  std::int64_t value = 0;
  check(H5Aread(attr, H5T_NATIVE_INT64, &value), "cannot read attribute " + name);
  return value;
}

std::string read_string_attribute(hid_t object, const std::string& name) {
  const Handle attr = attribute(H5Aopen(object, name.c_str(), H5P_DEFAULT), "missing attribute " + name);
  const Handle type = variable_string_type();
  char* text = nullptr;
  check(H5Aread(attr, type, &text), "cannot read attribute " + name);
  std::string out = text ? text : "";
  H5free_memory(text);
  return out;
}

}  // namespace pf::timeline::h5
