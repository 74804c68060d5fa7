#include "io/timeline/hdf5_types.h"

#include "io/timeline/packed_event.h"
#include "io/timeline/timeline_event.h"

namespace pf::timeline::h5 {

namespace {

void insert(hid_t compound, const char* name, std::size_t offset, hid_t member) {
  check(H5Tinsert(compound, name, offset, member), std::string("HDF5 compound member ") + name);
}

}  // namespace

Handle event_type() {
  Handle t = datatype(H5Tcreate(H5T_COMPOUND, packed::size), "/events datatype");
  insert(t, "gpu", packed::gpu, H5T_NATIVE_UINT32);
  insert(t, "stream", packed::stream, H5T_NATIVE_UINT8);
  insert(t, "kind", packed::kind, H5T_NATIVE_UINT16);
  insert(t, "start_ns", packed::start_ns, H5T_NATIVE_INT64);
  insert(t, "end_ns", packed::end_ns, H5T_NATIVE_INT64);
  insert(t, "layer", packed::layer, H5T_NATIVE_INT32);
  insert(t, "microbatch", packed::microbatch, H5T_NATIVE_INT32);
  insert(t, "phase", packed::phase, H5T_NATIVE_UINT8);
  insert(t, "bytes", packed::bytes, H5T_NATIVE_UINT64);
  insert(t, "flops", packed::flops, H5T_NATIVE_DOUBLE);
  insert(t, "group", packed::group, H5T_NATIVE_UINT32);
  return t;
}

Handle link_memory_type() {
  Handle t = datatype(H5Tcreate(H5T_COMPOUND, sizeof(LinkRow)), "/links datatype");
  insert(t, "link", offsetof(LinkRow, link), H5T_NATIVE_UINT32);
  insert(t, "src", offsetof(LinkRow, src), H5T_NATIVE_UINT32);
  insert(t, "dst", offsetof(LinkRow, dst), H5T_NATIVE_UINT32);
  insert(t, "class", offsetof(LinkRow, link_class), H5T_NATIVE_UINT8);
  insert(t, "busy_ns", offsetof(LinkRow, busy_ns), H5T_NATIVE_INT64);
  insert(t, "bytes", offsetof(LinkRow, bytes), H5T_NATIVE_UINT64);
  insert(t, "peak_queue_bytes", offsetof(LinkRow, peak_queue_bytes), H5T_NATIVE_UINT64);
  insert(t, "bandwidth_bytes_per_s", offsetof(LinkRow, bandwidth_bytes_per_s), H5T_NATIVE_DOUBLE);
  insert(t, "nominal_bandwidth_bytes_per_s", offsetof(LinkRow, nominal_bandwidth_bytes_per_s), H5T_NATIVE_DOUBLE);
  insert(t, "failed", offsetof(LinkRow, failed), H5T_NATIVE_UINT8);
  return t;
}

Handle gpu_summary_memory_type() {
  Handle t = datatype(H5Tcreate(H5T_COMPOUND, sizeof(GpuSummaryRow)), "/gpu_summary datatype");
  insert(t, "gpu", offsetof(GpuSummaryRow, gpu), H5T_NATIVE_UINT32);
  insert(t, "busy_ns", offsetof(GpuSummaryRow, busy_ns), H5T_NATIVE_INT64);
  insert(t, "idle_ns", offsetof(GpuSummaryRow, idle_ns), H5T_NATIVE_INT64);
  insert(t, "exposed_comm_ns", offsetof(GpuSummaryRow, exposed_comm_ns), H5T_NATIVE_INT64);
  insert(t, "peak_memory_bytes", offsetof(GpuSummaryRow, peak_memory_bytes), H5T_NATIVE_UINT64);
  insert(t, "compute_slowdown", offsetof(GpuSummaryRow, compute_slowdown), H5T_NATIVE_DOUBLE);
  insert(t, "jitter_sigma", offsetof(GpuSummaryRow, jitter_sigma), H5T_NATIVE_DOUBLE);
  return t;
}

Handle packed_copy(hid_t type) {
  Handle t = datatype(H5Tcopy(type), "HDF5 datatype copy");
  check(H5Tpack(t), "HDF5 datatype pack");
  return t;
}

Handle fixed_string_type(std::size_t width) {
  Handle t = datatype(H5Tcopy(H5T_C_S1), "HDF5 string datatype");
  check(H5Tset_size(t, width == 0 ? 1 : width), "HDF5 string size");
  check(H5Tset_strpad(t, H5T_STR_NULLTERM), "HDF5 string padding");
  check(H5Tset_cset(t, H5T_CSET_UTF8), "HDF5 string character set");
  return t;
}

Handle variable_string_type() {
  Handle t = datatype(H5Tcopy(H5T_C_S1), "HDF5 string datatype");
  check(H5Tset_size(t, H5T_VARIABLE), "HDF5 string size");
  check(H5Tset_cset(t, H5T_CSET_UTF8), "HDF5 string character set");
  return t;
}

}  // namespace pf::timeline::h5
