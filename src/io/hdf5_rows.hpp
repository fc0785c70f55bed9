#pragma once
// Reading per-component rows of a 2-D HDF5 dataset [rows][cols] of doubles in parallel: every
// rank reads only its own hyperslab [row_begin, row_end) through MPI-IO (collective transfer).
// Used by models that take an initial state from a result file (the contract: each run's final
// state is stored at /runs/<run_id>/final_state as [global_components][state values]).
// Bad input (missing file or dataset, wrong rank, type or width) is a UsageError naming the
// config key, raised on every rank.
//
// An interface between the two libraries: the compute core (liebench_compute, no HDF5) declares
// and dispatches these calls (io/rows_reader.cpp); the I/O layer (libliebench, io/hdf5_rows.cpp) installs the
// parallel-HDF5 implementation when it is loaded. A program built from the compute core alone
// (the SMPI variant) raises a UsageError naming the key instead.
#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

namespace lie::io {

struct DatasetShape {
  std::size_t rows = 0, cols = 0;
};

/// Shape of a 2-D floating-point dataset (collective over comm). `key` names the config key
/// that supplied the file, for error messages.
DatasetShape probe_rows(const std::string& path, const std::string& dataset, MPI_Comm comm, const std::string& key);

/// Reads rows [row_begin, row_end) (this rank's part; may be empty) of a [rows][cols] dataset
/// into out (row-major, (row_end - row_begin) * cols doubles). Collective over comm.
void read_rows(const std::string& path, const std::string& dataset, MPI_Comm comm, std::size_t row_begin,
               std::size_t row_end, std::size_t cols, std::vector<double>& out, const std::string& key);

/// The implementation behind probe_rows and read_rows (and so behind models/state_rows.hpp's
/// read_state).
struct StateFileReader {
  DatasetShape (*probe_rows)(const std::string& path, const std::string& dataset, MPI_Comm comm,
                             const std::string& key);
  void (*read_rows)(const std::string& path, const std::string& dataset, MPI_Comm comm, std::size_t row_begin,
                    std::size_t row_end, std::size_t cols, std::vector<double>& out, const std::string& key);
};
/// Called by the I/O layer's static initialiser (io/hdf5_rows.cpp).
void install_state_file_reader(const StateFileReader& reader);
const StateFileReader& state_file_reader();

/// The parallel-HDF5 implementations (I/O layer) installed behind probe_rows / read_rows.
DatasetShape hdf5_probe_rows(const std::string& path, const std::string& dataset, MPI_Comm comm, const std::string& key);
void hdf5_read_rows(const std::string& path, const std::string& dataset, MPI_Comm comm, std::size_t row_begin,
                    std::size_t row_end, std::size_t cols, std::vector<double>& out, const std::string& key);

}  // namespace lie::io
