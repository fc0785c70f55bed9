#include "studies/state_file.hpp"

namespace lie::io {

void write_state(const h5::File& f, hid_t loc, const std::string& name, const Model& model, const StateRows& layout,
                 const double* y) {
  const auto rows = pack_rows(model, layout, y);
  const bool mine = !layout.replicated || f.writer();
  h5::write_rows(f, loc, name, layout.global_rows, layout.cols, layout.row_offset, mine ? layout.local_rows : 0,
                 rows.data());
}

}  // namespace lie::io
