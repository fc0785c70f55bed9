#pragma once
// A thin RAII layer over the HDF5 C API (parallel HDF5 from OpenMPI) for liebench result
// files. Everything liebench writes goes through here.
//
// Parallel semantics (a file created with File::create on a communicator):
//   - every call that creates or changes metadata (groups, datasets, attributes, extents)
//     is collective: all ranks call it in the same order with the same arguments;
//   - small 1-D datasets (time series, summary columns) hold the same values on every rank;
//     only the file's `writer()` rank (rank 0) writes their raw data (independent I/O);
//   - large per-component arrays (states) are written collectively, each rank its own rows
//     (RowWriter, FrameWriter); nothing is gathered onto one rank.
// Files opened with File::open_read / File::create_serial use the default (serial) driver and
// are meant for one process (report, merge, tests).
//
// Strings are stored as fixed-length, NUL-terminated ASCII (variable-length strings cannot be
// written with the MPI-IO driver); h5dump shows them as strings, h5py as bytes.
#include <hdf5.h>
#include <mpi.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace lie::h5 {

/// An HDF5 library failure (cannot create, open, read or write); message names the object.
/// An I/O error (exit status 4). On a parallel file, every write, create and close is
/// followed by an agreement over the file's communicator, so that an error on one rank (the
/// writer of replicated data, or one rank of a collective write) is thrown on every rank at the
/// same point: no rank waits in the next collective call for a rank that has given up.
class Error : public IoError {
 public:
  using IoError::IoError;
};

/// Owns one HDF5 identifier (file, group, dataset, dataspace, datatype, property list,
/// attribute) and closes it with the matching H5*close.
class Handle {
 public:
  Handle() = default;
  explicit Handle(hid_t id) : id_(id) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : id_(o.id_) { o.id_ = H5I_INVALID_HID; }
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = o.id_;
      o.id_ = H5I_INVALID_HID;
    }
    return *this;
  }
  ~Handle() { reset(); }
  hid_t id() const { return id_; }
  operator hid_t() const { return id_; }  // NOLINT: pass straight to the C API
  bool valid() const { return id_ >= 0; }
  void reset() noexcept;
  /// Gives up ownership (the caller closes).
  hid_t release() noexcept {
    const hid_t id = id_;
    id_ = H5I_INVALID_HID;
    return id;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
};

class File {
 public:
  File() = default;
  /// Creates (truncates) `path` with the MPI-IO driver on `comm`. Collective. With `user_block`
  /// > 0 (a power of two >= 512) the file starts with that many bytes HDF5 leaves alone (io/seal.hpp).
  static File create(const std::string& path, MPI_Comm comm, std::size_t user_block = 0);
  /// Creates (truncates) `path` with the serial driver (one process).
  static File create_serial(const std::string& path);
  /// Opens an existing file read-only with the serial driver.
  static File open_read(const std::string& path);

  hid_t id() const { return h_.id(); }
  operator hid_t() const { return h_.id(); }  // NOLINT
  bool parallel() const { return parallel_; }
  /// Rank that writes raw data of replicated (small) datasets.
  bool writer() const { return rank_ == 0; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  MPI_Comm comm() const { return comm_; }
  const std::string& path() const { return path_; }
  /// Flushes and closes (collective on parallel files). Safe to call twice. Throws on every
  /// rank if the close failed on any (then the file is closed all the same).
  void close();
  /// Closes without throwing (error paths): collective on parallel files.
  void close_quietly() noexcept;

  /// Parallel files: throws Error on every rank if `local_error` is non-empty on any rank (the
  /// message of the first such rank). Collective. Serial files: throws if non-empty.
  void agree(const std::string& local_error) const;

 private:
  Handle h_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  bool parallel_ = false;
  int rank_ = 0, size_ = 1;
  std::string path_;
};

/// Turns off HDF5's automatic error printing (liebench reports errors itself). Idempotent.
void quiet_errors();

// ------------------------------------------------------------------ groups and links
bool exists(hid_t loc, const std::string& path);  // every intermediate link is checked
Handle create_group(hid_t loc, const std::string& name);  // creates missing parents too
Handle open_group(hid_t loc, const std::string& name);
Handle open_dataset(hid_t loc, const std::string& name);
/// Names of the links in a group, in name order.
std::vector<std::string> list(hid_t group);
bool is_group(hid_t loc, const std::string& name);
void hard_link(hid_t loc, const std::string& target, const std::string& link_name);
/// Copies object `src_name` (with everything below it) from src to dst. Serial files only.
void copy(hid_t src_loc, const std::string& src_name, hid_t dst_loc, const std::string& dst_name);

// ------------------------------------------------------------------ attributes
// Writers are collective on parallel files (every rank passes the same value). An existing
// attribute of the same name is replaced.
void attr(hid_t obj, const std::string& name, const std::string& value);
void attr(hid_t obj, const std::string& name, const char* value);
/// A scalar fixed-length ASCII string attribute (what H5MD mandates for `unit`); value must be ASCII.
void attr_ascii(hid_t obj, const std::string& name, const std::string& value);
void attr(hid_t obj, const std::string& name, double value);
void attr(hid_t obj, const std::string& name, std::int64_t value);
void attr(hid_t obj, const std::string& name, int value);
void attr(hid_t obj, const std::string& name, const std::vector<double>& values);
void attr(hid_t obj, const std::string& name, const std::vector<std::int64_t>& values);
void attr(hid_t obj, const std::string& name, const std::vector<std::string>& values);

bool has_attr(hid_t obj, const std::string& name);
std::vector<std::string> attr_names(hid_t obj);  // name order
std::string attr_string(hid_t obj, const std::string& name);
double attr_double(hid_t obj, const std::string& name);
std::int64_t attr_int(hid_t obj, const std::string& name);
std::vector<double> attr_doubles(hid_t obj, const std::string& name);
std::vector<std::string> attr_strings(hid_t obj, const std::string& name);
/// Any attribute as text (numbers with 17 significant digits, arrays comma separated).
std::string attr_text(hid_t obj, const std::string& name);

// ------------------------------------------------------------------ small 1-D datasets
// Replicated data: every rank calls (collective create), only the writer writes raw data.
// Returns the dataset so that attributes (unit, description) can be added.
Handle write_vector(const File& f, hid_t loc, const std::string& name, const std::vector<double>& v);
Handle write_vector(const File& f, hid_t loc, const std::string& name, const std::vector<std::int64_t>& v);
Handle write_vector(const File& f, hid_t loc, const std::string& name, const std::vector<std::string>& v);

enum class Kind { Integer, Real, String, Other };
Kind dataset_kind(hid_t dset);
std::vector<std::size_t> dataset_shape(hid_t dset);
std::vector<double> read_doubles(hid_t loc, const std::string& name);  // any numeric type, flattened
std::vector<std::int64_t> read_ints(hid_t loc, const std::string& name);
std::vector<std::string> read_strings(hid_t loc, const std::string& name);

// ------------------------------------------------------------------ distributed arrays
/// A fixed-size dataset [global_rows][cols] of doubles written collectively: each rank writes
/// its rows [row_offset, row_offset + local_rows). Ranks without rows still take part.
void write_rows(const File& f, hid_t loc, const std::string& name, std::size_t global_rows, std::size_t cols,
                std::size_t row_offset, std::size_t local_rows, const double* data);
/// Reads rows [row_offset, row_offset + rows) of a [rows][cols] dataset (independent read).
std::vector<double> read_rows(hid_t loc, const std::string& name, std::size_t row_offset, std::size_t rows,
                              std::size_t* cols_out = nullptr);

/// An extendable [frames][global_rows][cols] dataset (H5MD time-dependent `value`), appended
/// one frame at a time, collectively.
class FrameWriter {
 public:
  FrameWriter() = default;
  FrameWriter(const File& f, hid_t loc, const std::string& name, std::size_t global_rows, std::size_t cols);
  /// Appends one frame; each rank passes its rows. Collective.
  void append(std::size_t row_offset, std::size_t local_rows, const double* data);
  std::size_t frames() const { return frames_; }
  hid_t id() const { return dset_.id(); }
  void close() { dset_.reset(); }

 private:
  const File* file_ = nullptr;
  Handle dset_;
  std::size_t rows_ = 0, cols_ = 0, frames_ = 0;
};

/// Fixed-length string type of `len` characters (+ NUL).
Handle string_type(std::size_t len);

}  // namespace lie::h5
