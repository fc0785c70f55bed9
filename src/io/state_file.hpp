#pragma once
// States in HDF5 result files (I/O layer, libliebench): writing a model state as the
// [global_components][values per component] array of state_io.hpp, and the parallel-HDF5
// implementations of the compute core's file-reading interface (io/hdf5_rows.hpp), which this
// layer installs when it is loaded.
#include <cstddef>
#include <string>
#include <vector>

#include "io/h5.hpp"
#include "io/hdf5_rows.hpp"
#include "io/state_io.hpp"

namespace lie::io {

/// Writes the state as dataset `name` ([global_rows][cols]) under `loc`. Collective.
void write_state(const h5::File& f, hid_t loc, const std::string& name, const Model& model, const StateRows& layout,
                 const double* y);

/// The HDF5 implementations installed behind probe_rows / read_rows / read_state.
DatasetShape hdf5_probe_rows(const std::string& path, const std::string& dataset, MPI_Comm comm, const std::string& key);
void hdf5_read_rows(const std::string& path, const std::string& dataset, MPI_Comm comm, std::size_t row_begin,
                    std::size_t row_end, std::size_t cols, std::vector<double>& out, const std::string& key);
void hdf5_read_state(const std::string& path, const std::string& dataset, const Model& model, const par::Context& ctx,
                     double* y);

}  // namespace lie::io
