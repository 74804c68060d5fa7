// Internal to io/timeline: RAII ownership of HDF5 identifiers and turning
// HDF5's error stack into one-line messages. With io/timeline's other *.cpp
// files, the only place that includes <hdf5.h> (STYLE: one file family owns
// the output format).
#pragma once

#include <hdf5.h>

#include <string>
#include <utility>

namespace pf::timeline::h5 {

// Closes the identifier with the matching H5?close when it goes out of scope.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  ~Handle() { reset(); }
  Handle(Handle&& other) noexcept : id_(std::exchange(other.id_, H5I_INVALID_HID)), closer_(other.closer_) {}
  Handle& operator=(Handle&& other) noexcept {
    if (this != &other) {
      reset();
      id_ = std::exchange(other.id_, H5I_INVALID_HID);
      closer_ = other.closer_;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;

  hid_t get() const { return id_; }
  operator hid_t() const { return id_; }  // NOLINT: handles are passed straight to the C API
  // Closes now and reports failure (a destructor cannot): H5Fclose flushes.
  herr_t close();
  // Gives the identifier up without closing it: for a file whose write
  // failed inside HDF5, which closing would hang (timeline_writer.cpp).
  void abandon() { id_ = H5I_INVALID_HID; }

 private:
  void reset();
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

// Stops HDF5 printing its error stack to stderr: failures become one-line
// pf::Error messages instead (io/cli/README.md: no stack traces).
void silence_errors();

// The innermost message on HDF5's error stack ("unable to open file: name =
// ..., errno = 2, error message = 'No such file or directory'").
std::string error_text();

// `id` if it is valid, else throws Hdf5CallError("<what>: <error_text()>").
Handle checked(hid_t id, Handle::Closer closer, const std::string& what);
void check(herr_t status, const std::string& what);

inline Handle file(hid_t id, const std::string& what) { return checked(id, H5Fclose, what); }
inline Handle group(hid_t id, const std::string& what) { return checked(id, H5Gclose, what); }
inline Handle dataset(hid_t id, const std::string& what) { return checked(id, H5Dclose, what); }
inline Handle dataspace(hid_t id, const std::string& what) { return checked(id, H5Sclose, what); }
inline Handle datatype(hid_t id, const std::string& what) { return checked(id, H5Tclose, what); }
inline Handle plist(hid_t id, const std::string& what) { return checked(id, H5Pclose, what); }
inline Handle attribute(hid_t id, const std::string& what) { return checked(id, H5Aclose, what); }

}  // namespace pf::timeline::h5
