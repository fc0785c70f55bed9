#include "io/hdf5_rows.hpp"

#include <sys/stat.h>

#include <hdf5.h>

#include "core/error.hpp"
#include "core/quote.hpp"

namespace lie::io {

namespace {

// Silences the HDF5 error stack for the lifetime of the object (errors are reported as
// UsageErrors instead).
class QuietHdf5 {
 public:
  QuietHdf5() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~QuietHdf5() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

// Raises the same UsageError on every rank if any rank failed (messages come from the
// lowest failing rank's reason, which is the same on all ranks for shared files).
void agree(MPI_Comm comm, bool ok, const std::string& message) {
  int bad = ok ? 0 : 1, any = bad;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, comm);
  if (any) throw UsageError(message);
}

struct Handles {
  hid_t fapl = -1, file = -1, dset = -1, space = -1;
  ~Handles() {
    if (space >= 0) H5Sclose(space);
    if (dset >= 0) H5Dclose(dset);
    if (file >= 0) H5Fclose(file);
    if (fapl >= 0) H5Pclose(fapl);
  }
};

// Opens file and dataset collectively and checks that it is a 2-D floating-point array.
DatasetShape open(Handles& h, const std::string& path, const std::string& dataset, MPI_Comm comm,
                  const std::string& key) {
  QuietHdf5 quiet;
  // A directory or device is refused before MPI-IO opens it (which prints pages of noise).
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  agree(comm, !exists || S_ISREG(st.st_mode),
        "key " + quote(key) + " has value " + quote(path) + ", which is " +
            (exists && S_ISDIR(st.st_mode) ? "a directory" : "not a regular file") + "; give an HDF5 file");
  h.fapl = H5Pcreate(H5P_FILE_ACCESS);
  H5Pset_fapl_mpio(h.fapl, comm, MPI_INFO_NULL);
  h.file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, h.fapl);
  agree(comm, h.file >= 0, "key " + quote(key) + " has value " + quote(path) + "; cannot open it as an HDF5 file");
  h.dset = H5Dopen2(h.file, dataset.c_str(), H5P_DEFAULT);
  agree(comm, h.dset >= 0, "HDF5 file " + quote(path) + " (key " + quote(key) + ") has no dataset " + quote(dataset));
  h.space = H5Dget_space(h.dset);
  const int ndims = H5Sget_simple_extent_ndims(h.space);
  hsize_t dims[2] = {0, 0};
  if (ndims == 2) H5Sget_simple_extent_dims(h.space, dims, nullptr);
  const hid_t type = H5Dget_type(h.dset);
  const bool is_float = H5Tget_class(type) == H5T_FLOAT;
  H5Tclose(type);
  agree(comm, ndims == 2 && is_float,
        "dataset " + quote(dataset) + " in " + quote(path) + " (key " + quote(key) +
            ") must be a 2-D floating-point array [components][values]");
  return {static_cast<std::size_t>(dims[0]), static_cast<std::size_t>(dims[1])};
}

}  // namespace

DatasetShape hdf5_probe_rows(const std::string& path, const std::string& dataset, MPI_Comm comm, const std::string& key) {
  Handles h;
  return open(h, path, dataset, comm, key);
}

void hdf5_read_rows(const std::string& path, const std::string& dataset, MPI_Comm comm, std::size_t row_begin,
                    std::size_t row_end, std::size_t cols, std::vector<double>& out, const std::string& key) {
  Handles h;
  const DatasetShape shape = open(h, path, dataset, comm, key);
  agree(comm, shape.cols == cols && row_end <= shape.rows && row_begin <= row_end,
        "dataset " + quote(dataset) + " in " + quote(path) + " (key " + quote(key) + ") has shape [" + std::to_string(shape.rows) +
            "][" + std::to_string(shape.cols) + "]; expected " + std::to_string(cols) +
            " values per component and at least " + std::to_string(row_end) + " components");
  const std::size_t n = row_end - row_begin;
  out.assign(n * cols, 0.0);
  const hsize_t start[2] = {static_cast<hsize_t>(row_begin), 0};
  const hsize_t count[2] = {static_cast<hsize_t>(n), static_cast<hsize_t>(cols)};
  const hsize_t mdims[1] = {static_cast<hsize_t>(n ? n * cols : 1)};  // an empty rank selects none
  hid_t mspace = H5Screate_simple(1, mdims, nullptr);
  if (n == 0) {
    H5Sselect_none(h.space);
    H5Sselect_none(mspace);
  } else {
    H5Sselect_hyperslab(h.space, H5S_SELECT_SET, start, nullptr, count, nullptr);
  }
  hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
  herr_t status;
  {
    QuietHdf5 quiet;
    double dummy = 0.0;
    status = H5Dread(h.dset, H5T_NATIVE_DOUBLE, mspace, h.space, dxpl, n ? out.data() : &dummy);
  }
  H5Pclose(dxpl);
  H5Sclose(mspace);
  agree(comm, status >= 0, "reading dataset " + quote(dataset) + " from " + quote(path) + " (key " + quote(key) + ") failed");
}

namespace {

// Installs the parallel-HDF5 reader behind the compute core's interface when libliebench is
// loaded (static initialisation of this library).
const bool installed = [] {
  install_state_file_reader({hdf5_probe_rows, hdf5_read_rows});
  return true;
}();

}  // namespace

}  // namespace lie::io
