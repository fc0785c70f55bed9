#include "models/state_rows.hpp"

#include <stdexcept>

#include "core/error.hpp"
#include "core/quote.hpp"
#include "io/hdf5_rows.hpp"

namespace lie::io {

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
                double* y, const std::string& key) {
  const StateRows layout = state_rows(model, ctx);
  const DatasetShape shape = probe_rows(path, dataset, ctx.comm(), key);
  if (shape.rows != layout.global_rows || shape.cols != layout.cols)
    throw UsageError("dataset " + quote(dataset) + " in " + quote(path) + " has shape [" + std::to_string(shape.rows) +
                     "][" + std::to_string(shape.cols) + "] (key '" + key + "'); model '" + model.name() + "' needs [" +
                     std::to_string(layout.global_rows) + "][" + std::to_string(layout.cols) + "]");
  std::vector<double> rows;
  read_rows(path, dataset, ctx.comm(), layout.row_offset, layout.row_offset + layout.local_rows, layout.cols, rows, key);
  unpack_rows(model, layout, rows.data(), y);
}

}  // namespace lie::io
