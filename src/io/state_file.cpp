#include "io/state_file.hpp"

#include "core/error.hpp"

namespace lie::io {

void write_state(const h5::File& f, hid_t loc, const std::string& name, const Model& model, const StateRows& layout,
                 const double* y) {
  const auto rows = pack_rows(model, layout, y);
  const bool mine = !layout.replicated || f.writer();
  h5::write_rows(f, loc, name, layout.global_rows, layout.cols, layout.row_offset, mine ? layout.local_rows : 0,
                 rows.data());
}

void hdf5_read_state(const std::string& path, const std::string& dataset, const Model& model, const par::Context& ctx,
                     double* y) {
  const StateRows layout = state_rows(model, ctx);
  h5::File f;
  try {
    f = h5::File::open_read(path);
  } catch (const h5::Error& e) {
    throw UsageError(std::string(e.what()) + "; check the path of the initial-state file");
  }
  if (!h5::exists(f.id(), dataset))
    throw UsageError("file '" + path + "' has no dataset '" + dataset + "' (runs are /runs/run_NNNNN/final_state)");
  h5::Handle d = h5::open_dataset(f.id(), dataset);
  const auto shape = h5::dataset_shape(d);
  if (shape.size() != 2 || shape[0] != layout.global_rows || shape[1] != layout.cols)
    throw UsageError("dataset '" + dataset + "' in '" + path + "' has shape [" +
                     (shape.size() == 2 ? std::to_string(shape[0]) + "][" + std::to_string(shape[1]) : std::string("?")) +
                     "]; model '" + model.name() + "' needs [" + std::to_string(layout.global_rows) + "][" +
                     std::to_string(layout.cols) + "]");
  const auto rows = h5::read_rows(f.id(), dataset, layout.row_offset, layout.local_rows);
  unpack_rows(model, layout, rows.data(), y);
}

namespace {

// Installs the parallel-HDF5 reader behind the compute core's interface when libliebench is
// loaded (static initialisation of this library).
const bool installed = [] {
  install_state_file_reader({hdf5_probe_rows, hdf5_read_rows, hdf5_read_state});
  return true;
}();

}  // namespace

}  // namespace lie::io
