#include "io/state_io.hpp"

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
         std::vector<double>&, const std::string& key) { no_file_reader("key '" + key + "'"); },
      [](const std::string& path, const std::string&, const Model&, const par::Context&, double*) {
        no_file_reader("initial state file '" + path + "'");
      }};
  return r;
}

}  // namespace

void install_state_file_reader(const StateFileReader& reader) { reader_slot() = reader; }
const StateFileReader& state_file_reader() { return reader_slot(); }

StateRows state_rows(const Model& model, const par::Context& ctx) {
  StateRows r;
  r.global_rows = model.global_components();
  r.cols = static_cast<std::size_t>(model.state_dim_per_component());
  r.row_offset = model.global_offset();
  const Space& sp = model.space();
  if (r.cols == 0) throw std::logic_error("model '" + model.name() + "' reports 0 state values per component");
  if (sp.state_size() % r.cols != 0)
    throw std::logic_error("model '" + model.name() + "': local state size " + std::to_string(sp.state_size()) +
                           " is not a multiple of state_dim_per_component = " + std::to_string(r.cols));
  r.local_rows = sp.state_size() / r.cols;
  const auto& blocks = sp.blocks();
  if (blocks.size() > 1) {
    std::size_t dims = 0;
    bool same_count = true;
    for (const Block& b : blocks) {
      dims += static_cast<std::size_t>(b.state_dim);
      same_count = same_count && b.count == r.local_rows;
    }
    if (same_count && dims == r.cols) {
      r.interleave = true;
    } else if (r.local_rows != 1) {
      throw std::logic_error("model '" + model.name() + "': blocks of different lengths cannot be stored as rows of " +
                             std::to_string(r.cols) + " values per component");
    }
  }
  const std::uint64_t total = ctx.sum_u64(r.local_rows);
  if (total != r.global_rows) {
    if (r.local_rows == r.global_rows && total == r.global_rows * static_cast<std::uint64_t>(ctx.size())) {
      r.replicated = true;
      r.row_offset = 0;
    } else {
      throw std::logic_error("model '" + model.name() + "': ranks hold " + std::to_string(total) + " components in total, "
                             "global_components() = " + std::to_string(r.global_rows));
    }
  }
  return r;
}

std::vector<double> pack_rows(const Model& model, const StateRows& layout, const double* y) {
  const std::size_t n = layout.local_rows * layout.cols;
  std::vector<double> out(n);
  if (!layout.interleave) {
    std::copy(y, y + n, out.begin());
    return out;
  }
  std::size_t col = 0;
  for (const Block& b : model.space().blocks()) {
    const std::size_t d = static_cast<std::size_t>(b.state_dim);
    for (std::size_t i = 0; i < b.count; ++i)
      for (std::size_t k = 0; k < d; ++k) out[i * layout.cols + col + k] = y[b.state_offset + i * d + k];
    col += d;
  }
  return out;
}

void unpack_rows(const Model& model, const StateRows& layout, const double* rows, double* y) {
  const std::size_t n = layout.local_rows * layout.cols;
  if (!layout.interleave) {
    std::copy(rows, rows + n, y);
    return;
  }
  std::size_t col = 0;
  for (const Block& b : model.space().blocks()) {
    const std::size_t d = static_cast<std::size_t>(b.state_dim);
    for (std::size_t i = 0; i < b.count; ++i)
      for (std::size_t k = 0; k < d; ++k) y[b.state_offset + i * d + k] = rows[i * layout.cols + col + k];
    col += d;
  }
}

void read_state(const std::string& path, const std::string& dataset, const Model& model, const par::Context& ctx,
                double* y) {
  state_file_reader().read_state(path, dataset, model, ctx, y);
}

DatasetShape probe_rows(const std::string& path, const std::string& dataset, MPI_Comm comm, const std::string& key) {
  return state_file_reader().probe_rows(path, dataset, comm, key);
}

void read_rows(const std::string& path, const std::string& dataset, MPI_Comm comm, std::size_t row_begin,
               std::size_t row_end, std::size_t cols, std::vector<double>& out, const std::string& key) {
  state_file_reader().read_rows(path, dataset, comm, row_begin, row_end, cols, out, key);
}

}  // namespace lie::io
