#pragma once
// States in result files: a model state is stored as a [global_components][values per
// component] array (the contract `/runs/<run_id>/final_state`), written collectively, each
// rank its own rows. Row i holds, block by block in the Space's block order, the state
// values of component i (for a one-block model that is simply the flat state).
//
// Models that replicate their (few) components on every rank instead of splitting them are
// detected (the local row counts add up to more than global_components) and written by
// rank 0 alone.
//
// This header belongs to the compute core (library target liebench_compute, no HDF5): the
// row layout is plain arithmetic, and read_state reads rows through the file reader that the I/O
// layer installs (io/hdf5_rows.hpp). Writing a state into an open HDF5 file is in
// studies/state_file.hpp (I/O layer). (Namespace lie::io, as when it lived in src/io.)
#include <cstddef>
#include <string>
#include <vector>

#include "models/model.hpp"
#include "parallel/context.hpp"

namespace lie::io {

/// How a model's local flat state maps to rows of the per-component array.
struct StateRows {
  std::size_t global_rows = 0;  // Model::global_components()
  std::size_t cols = 0;         // Model::state_dim_per_component()
  std::size_t local_rows = 0;   // rows held by this rank
  std::size_t row_offset = 0;   // Model::global_offset()
  bool replicated = false;      // every rank holds all rows (only rank 0 writes)
  bool interleave = false;      // several blocks: gather component i of every block into row i
};

/// Describes the layout (collective: checks the row counts over ranks). Throws
/// std::logic_error when the model's Space cannot be read as rows of
/// state_dim_per_component() values.
StateRows state_rows(const Model& model, const par::Context& ctx);

/// Local flat state -> local rows (row-major, local_rows x cols).
std::vector<double> pack_rows(const Model& model, const StateRows& layout, const double* y);
/// Local rows -> local flat state.
void unpack_rows(const Model& model, const StateRows& layout, const double* rows, double* y);

/// Reads this rank's rows of a state dataset written by write_state into the local flat state
/// `y` (Space::state_size() values). For models reading an initial state from a result file:
///   read_state("old.h5", "/runs/run_00003/final_state", model, ctx, y)
/// Throws UsageError, naming `key` (the configuration key that gave the file), when the file,
/// the dataset or its shape does not match the model.
void read_state(const std::string& path, const std::string& dataset, const Model& model, const par::Context& ctx,
                double* y, const std::string& key = "file");

}  // namespace lie::io
