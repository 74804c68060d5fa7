#include "io/timeline/hdf5_handles.h"

#include "io/timeline/timeline_error.h"

namespace pf::timeline::h5 {

void Handle::reset() {
  if (id_ >= 0 && closer_) closer_(id_);
  id_ = H5I_INVALID_HID;
}

herr_t Handle::close() {
  herr_t status = 0;
  if (id_ >= 0 && closer_) status = closer_(id_);
  id_ = H5I_INVALID_HID;
  return status;
}

void silence_errors() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

namespace {

// H5Ewalk visits the stack from the API call inwards; the last (innermost)
// entry names the actual cause (a file system errno, a missing object).
herr_t keep_innermost(unsigned, const H5E_error2_t* entry, void* out) {
  if (entry->desc) *static_cast<std::string*>(out) = entry->desc;
  return 0;
}

}  // namespace

std::string error_text() {
  std::string text;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, keep_innermost, &text);
  H5Eclear2(H5E_DEFAULT);
  return text.empty() ? "HDF5 reported no detail" : text;
}

Handle checked(hid_t id, Handle::Closer closer, const std::string& what) {
  if (id < 0) throw Hdf5CallError(what + ": " + error_text());
  return Handle(id, closer);
}

void check(herr_t status, const std::string& what) {
  if (status < 0) throw Hdf5CallError(what + ": " + error_text());
}

}  // namespace pf::timeline::h5
