#include "io/timeline/hdf5_datasets.h"

#include <algorithm>
#include <type_traits>

#include "io/timeline/hdf5_types.h"

namespace pf::timeline::h5 {

namespace {

Handle simple_space(std::size_t count, const std::string& what) {
  const hsize_t dims[1] = {static_cast<hsize_t>(count)};
  return dataspace(H5Screate_simple(1, dims, nullptr), what);
}

Handle create_dataset(hid_t parent, const std::string& name, hid_t file_type, hid_t space) {
  return dataset(H5Dcreate2(parent, name.c_str(), file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                 "cannot create dataset " + name);
}

}  // namespace

void write_rows(hid_t parent, const std::string& name, hid_t memory_type, hid_t file_type, const void* data,
                std::size_t count, bool writes_data) {
  const Handle space = simple_space(count, name);
  const Handle set = create_dataset(parent, name, file_type, space);
  if (writes_data && count > 0)
    check(H5Dwrite(set, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), "cannot write dataset " + name);
}

void write_string_table(hid_t parent, const std::string& name, const std::vector<std::string>& table,
                        bool writes_data) {
  std::size_t width = 1;
  for (const std::string& s : table) width = std::max(width, s.size() + 1);
  std::vector<char> packed(table.size() * width, '\0');
  for (std::size_t i = 0; i < table.size(); ++i) std::copy(table[i].begin(), table[i].end(), &packed[i * width]);
  const Handle type = fixed_string_type(width);
  write_rows(parent, name, type, type, packed.data(), table.size(), writes_data);
}

void write_text(hid_t parent, const std::string& name, const std::string& text, bool writes_data) {
  const Handle type = fixed_string_type(text.size() + 1);
  const Handle space = dataspace(H5Screate(H5S_SCALAR), name);
  const Handle set = create_dataset(parent, name, type, space);
  if (writes_data)
    check(H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.c_str()), "cannot write dataset " + name);
}

void write_attribute(hid_t object, const std::string& name, const SummaryValue& value) {
  const std::string what = "cannot write attribute " + name;
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          const Handle type = variable_string_type();
          const Handle space = dataspace(H5Screate(H5S_SCALAR), what);
          const Handle attr = attribute(H5Acreate2(object, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), what);
          const char* text = v.c_str();
          check(H5Awrite(attr, type, &text), what);
        } else if constexpr (std::is_same_v<T, std::vector<double>>) {
          const Handle space = simple_space(v.size(), what);
          const Handle attr =
              attribute(H5Acreate2(object, name.c_str(), H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT), what);
          if (!v.empty()) check(H5Awrite(attr, H5T_NATIVE_DOUBLE, v.data()), what);
        } else {
          const hid_t type = std::is_same_v<T, double> ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64;
          const Handle space = dataspace(H5Screate(H5S_SCALAR), what);
          const Handle attr = attribute(H5Acreate2(object, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT), what);
          check(H5Awrite(attr, type, &v), what);
        }
      },
      value);
}

}  // namespace pf::timeline::h5
