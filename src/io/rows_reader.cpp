// The compute core's side of io/hdf5_rows.hpp: probe_rows and read_rows dispatch to the reader
// the I/O layer installs (io/hdf5_rows.cpp); without it (the compute core alone, e.g. the SMPI
// build variant) every call is a UsageError naming the key.
#include <stdexcept>

#include "core/error.hpp"
#include "io/hdf5_rows.hpp"

namespace lie::io {

namespace {

// Without the I/O layer (the compute core alone, e.g. the SMPI build variant) a state cannot be
// read from a file: every call says so, naming the config key.
[[noreturn]] void no_file_reader(const std::string& what) {
  throw UsageError(what + ": reading a state from an HDF5 file needs the I/O layer (libliebench), which this "
                   "build of the compute core alone (e.g. the SMPI variant) does not have; give an initial "
                   "state that is not read from a file, or use the regular build");
}

StateFileReader& reader_slot() {
  static StateFileReader r{
      [](const std::string&, const std::string&, MPI_Comm, const std::string& key) -> DatasetShape {
        no_file_reader("key '" + key + "'");
      },
      [](const std::string&, const std::string&, MPI_Comm, std::size_t, std::size_t, std::size_t,
         std::vector<double>&, const std::string& key) { no_file_reader("key '" + key + "'"); }};
  return r;
}

}  // namespace

void install_state_file_reader(const StateFileReader& reader) { reader_slot() = reader; }
const StateFileReader& state_file_reader() { return reader_slot(); }

DatasetShape probe_rows(const std::string& path, const std::string& dataset, MPI_Comm comm, const std::string& key) {
  return state_file_reader().probe_rows(path, dataset, comm, key);
}

void read_rows(const std::string& path, const std::string& dataset, MPI_Comm comm, std::size_t row_begin,
               std::size_t row_end, std::size_t cols, std::vector<double>& out, const std::string& key) {
  state_file_reader().read_rows(path, dataset, comm, row_begin, row_end, cols, out, key);
}

}  // namespace lie::io
