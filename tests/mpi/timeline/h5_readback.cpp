#include "tests/mpi/timeline/h5_readback.h"

#include <hdf5.h>

#include <cstddef>
#include <cstring>
#include <stdexcept>

namespace pf::timeline::testing {

namespace {

// Minimal RAII for the test: close on scope exit, throw on an invalid id.
struct Id {
  hid_t id;
  herr_t (*closer)(hid_t);
  Id(hid_t i, herr_t (*c)(hid_t), const std::string& what) : id(i), closer(c) {
    if (id < 0) throw std::runtime_error("HDF5 readback failed: " + what);
  }
  ~Id() { closer(id); }
  Id(const Id&) = delete;
  Id& operator=(const Id&) = delete;
  operator hid_t() const { return id; }  // NOLINT
};

Id open_file(const std::string& path) { return Id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, path); }
Id open_set(hid_t file, const std::string& name) { return Id(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose, name); }

std::size_t rows(hid_t set) {
  const Id space(H5Dget_space(set), H5Sclose, "space");
  hsize_t dims[1] = {0};
  H5Sget_simple_extent_dims(space, dims, nullptr);
  return dims[0];
}

template <typename T>
std::vector<T> read_all(const std::string& path, const std::string& name, hid_t memory_type) {
  const Id file = open_file(path);
  const Id set = open_set(file, name);
  std::vector<T> out(rows(set));
  if (!out.empty() && H5Dread(set, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) < 0)
    throw std::runtime_error("HDF5 readback: cannot read " + name);
  return out;
}

void member(hid_t t, const char* name, std::size_t offset, hid_t type) { H5Tinsert(t, name, offset, type); }

Id open_attribute(const Id& file, const std::string& object, const std::string& name) {
  return Id(H5Aopen_by_name(file, object.c_str(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose, object + "@" + name);
}

}  // namespace

std::vector<TimelineEvent> read_events_raw(const std::string& path) {
  const Id t(H5Tcreate(H5T_COMPOUND, sizeof(TimelineEvent)), H5Tclose, "type");
  member(t, "gpu", offsetof(TimelineEvent, gpu), H5T_NATIVE_UINT32);
  member(t, "stream", offsetof(TimelineEvent, stream), H5T_NATIVE_UINT8);
  member(t, "kind", offsetof(TimelineEvent, kind), H5T_NATIVE_UINT16);
  member(t, "start_ns", offsetof(TimelineEvent, start_ns), H5T_NATIVE_INT64);
  member(t, "end_ns", offsetof(TimelineEvent, end_ns), H5T_NATIVE_INT64);
  member(t, "layer", offsetof(TimelineEvent, layer), H5T_NATIVE_INT32);
  member(t, "microbatch", offsetof(TimelineEvent, microbatch), H5T_NATIVE_INT32);
  member(t, "phase", offsetof(TimelineEvent, phase), H5T_NATIVE_UINT8);
  member(t, "bytes", offsetof(TimelineEvent, bytes), H5T_NATIVE_UINT64);
  member(t, "flops", offsetof(TimelineEvent, flops), H5T_NATIVE_DOUBLE);
  member(t, "group", offsetof(TimelineEvent, group), H5T_NATIVE_UINT32);
  return read_all<TimelineEvent>(path, "events", t);
}

std::vector<FieldInfo> compound_fields(const std::string& path, const std::string& dataset) {
  const Id file = open_file(path);
  const Id set = open_set(file, dataset);
  const Id type(H5Dget_type(set), H5Tclose, "type");
  std::vector<FieldInfo> out;
  for (int i = 0; i < H5Tget_nmembers(type); ++i) {
    char* name = H5Tget_member_name(type, static_cast<unsigned>(i));
    const Id m(H5Tget_member_type(type, static_cast<unsigned>(i)), H5Tclose, "member");
    const H5T_class_t cls = H5Tget_class(m);
    char kind = cls == H5T_FLOAT ? 'f' : (H5Tget_sign(m) == H5T_SGN_2 ? 'i' : 'u');
    if (cls != H5T_FLOAT && cls != H5T_INTEGER) kind = '?';
    out.push_back({name, kind, H5Tget_size(m)});
    H5free_memory(name);
  }
  return out;
}

bool events_chunked_shuffled_deflated(const std::string& path) {
  const Id file = open_file(path);
  const Id set = open_set(file, "events");
  const Id dcpl(H5Dget_create_plist(set), H5Pclose, "dcpl");
  if (H5Pget_layout(dcpl) != H5D_CHUNKED) return false;
  bool shuffle = false, deflate = false;
  for (int i = 0; i < H5Pget_nfilters(dcpl); ++i) {
    unsigned flags = 0;
    std::size_t n = 0;
    const H5Z_filter_t f = H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &n, nullptr, 0, nullptr, nullptr);
    shuffle |= f == H5Z_FILTER_SHUFFLE;
    deflate |= f == H5Z_FILTER_DEFLATE;
  }
  return shuffle && deflate;
}

std::vector<std::string> read_strings_raw(const std::string& path, const std::string& dataset) {
  const Id file = open_file(path);
  const Id set = open_set(file, dataset);
  const Id type(H5Dget_type(set), H5Tclose, "type");
  const std::size_t width = H5Tget_size(type);
  std::vector<char> buffer(rows(set) * width + 1, '\0');
  if (rows(set) > 0 && H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer.data()) < 0)
    throw std::runtime_error("HDF5 readback: cannot read " + dataset);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < rows(set); ++i) out.emplace_back(&buffer[i * width], strnlen(&buffer[i * width], width));
  return out;
}

std::vector<std::uint64_t> read_u64_raw(const std::string& path, const std::string& dataset) {
  return read_all<std::uint64_t>(path, dataset, H5T_NATIVE_UINT64);
}

std::vector<std::uint32_t> read_u32_raw(const std::string& path, const std::string& dataset) {
  return read_all<std::uint32_t>(path, dataset, H5T_NATIVE_UINT32);
}

std::vector<LinkRow> read_links_raw(const std::string& path) {
  const Id t(H5Tcreate(H5T_COMPOUND, sizeof(LinkRow)), H5Tclose, "type");
  member(t, "link", offsetof(LinkRow, link), H5T_NATIVE_UINT32);
  member(t, "src", offsetof(LinkRow, src), H5T_NATIVE_UINT32);
  member(t, "dst", offsetof(LinkRow, dst), H5T_NATIVE_UINT32);
  member(t, "class", offsetof(LinkRow, link_class), H5T_NATIVE_UINT8);
  member(t, "busy_ns", offsetof(LinkRow, busy_ns), H5T_NATIVE_INT64);
  member(t, "bytes", offsetof(LinkRow, bytes), H5T_NATIVE_UINT64);
  member(t, "peak_queue_bytes", offsetof(LinkRow, peak_queue_bytes), H5T_NATIVE_UINT64);
  member(t, "bandwidth_bytes_per_s", offsetof(LinkRow, bandwidth_bytes_per_s), H5T_NATIVE_DOUBLE);
  member(t, "nominal_bandwidth_bytes_per_s", offsetof(LinkRow, nominal_bandwidth_bytes_per_s), H5T_NATIVE_DOUBLE);
  member(t, "failed", offsetof(LinkRow, failed), H5T_NATIVE_UINT8);
  return read_all<LinkRow>(path, "links", t);
}

std::vector<GpuSummaryRow> read_gpu_summary_raw(const std::string& path) {
  const Id t(H5Tcreate(H5T_COMPOUND, sizeof(GpuSummaryRow)), H5Tclose, "type");
  member(t, "gpu", offsetof(GpuSummaryRow, gpu), H5T_NATIVE_UINT32);
  member(t, "busy_ns", offsetof(GpuSummaryRow, busy_ns), H5T_NATIVE_INT64);
  member(t, "idle_ns", offsetof(GpuSummaryRow, idle_ns), H5T_NATIVE_INT64);
  member(t, "exposed_comm_ns", offsetof(GpuSummaryRow, exposed_comm_ns), H5T_NATIVE_INT64);
  member(t, "peak_memory_bytes", offsetof(GpuSummaryRow, peak_memory_bytes), H5T_NATIVE_UINT64);
  member(t, "compute_slowdown", offsetof(GpuSummaryRow, compute_slowdown), H5T_NATIVE_DOUBLE);
  member(t, "jitter_sigma", offsetof(GpuSummaryRow, jitter_sigma), H5T_NATIVE_DOUBLE);
  return read_all<GpuSummaryRow>(path, "gpu_summary", t);
}

double read_double_attribute(const std::string& path, const std::string& object, const std::string& name) {
  const Id file = open_file(path);
  const Id attr = open_attribute(file, object, name);
  double v = 0;
  H5Aread(attr, H5T_NATIVE_DOUBLE, &v);
  return v;
}

std::int64_t read_int_attribute(const std::string& path, const std::string& object, const std::string& name) {
  const Id file = open_file(path);
  const Id attr = open_attribute(file, object, name);
  std::int64_t v = 0;
  H5Aread(attr, H5T_NATIVE_INT64, &v);
  return v;
}

std::string read_string_attribute(const std::string& path, const std::string& object, const std::string& name) {
  const Id file = open_file(path);
  const Id attr = open_attribute(file, object, name);
  const Id type(H5Aget_type(attr), H5Tclose, "type");
  if (H5Tis_variable_str(type) <= 0) throw std::runtime_error(name + " is not a variable-length string");
  char* text = nullptr;
  H5Aread(attr, type, &text);
  std::string out = text ? text : "";
  H5free_memory(text);
  return out;
}

std::string read_config_raw(const std::string& path) {
  const Id file = open_file(path);
  const Id set = open_set(file, "config");
  const Id type(H5Dget_type(set), H5Tclose, "type");
  std::string text(H5Tget_size(type), '\0');
  H5Dread(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data());
  text.resize(strnlen(text.c_str(), text.size()));
  return text;
}

}  // namespace pf::timeline::testing

namespace pf::timeline::testing {
void write_unrelated_hdf5(const std::string& path) {
  const Id file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, path);
  const hsize_t dims[1] = {3};
  const Id space(H5Screate_simple(1, dims, nullptr), H5Sclose, "space");
  const Id set(H5Dcreate2(file, "numbers", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose,
               "numbers");
  const int values[3] = {1, 2, 3};
  H5Dwrite(set, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values);
}
}  // namespace pf::timeline::testing
