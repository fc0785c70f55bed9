#pragma once
// States in HDF5 result files (I/O layer, libliebench): a model state written as the
// [global_components][values per component] array of models/state_rows.hpp (the contract
// `/runs/<run_id>/final_state`), collectively, each rank its own rows. Reading one back is
// models/state_rows.hpp's read_state, through the reader io/hdf5_rows.cpp installs.
#include <string>

#include "io/h5.hpp"
#include "models/state_rows.hpp"

namespace lie::io {

/// Writes the state as dataset `name` ([global_rows][cols]) under `loc`. Collective.
void write_state(const h5::File& f, hid_t loc, const std::string& name, const Model& model, const StateRows& layout,
                 const double* y);

}  // namespace lie::io
