// The H5MD trajectory of a run (studies/trajectory.hpp).
#include "studies/trajectory.hpp"

#include <algorithm>

#include <mpi.h>

namespace lie::studies {

namespace {

/// Index of the model's block whose state starts with a rotation matrix Q (row-major) of each
/// component: SO(3) and T*SO(3) factors (heavy top, free rigid body with attitude); -1 if none,
/// or if its entries are not one per component row. Decided by every rank alike.
int orientation_block(const Model& model, const io::StateRows& layout, const par::Context& ctx) {
  int found = -1;
  const auto& blocks = model.space().blocks();
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const FactorKind k = blocks[i].kind;
    if (k == FactorKind::SO3Left || k == FactorKind::SO3Right || k == FactorKind::TstarSO3RightTriv ||
        k == FactorKind::TstarSO3LeftTriv) {
      found = static_cast<int>(i);
      break;
    }
  }
  int usable = found >= 0 && blocks[static_cast<std::size_t>(found)].count == layout.local_rows ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &usable, 1, MPI_INT, MPI_MIN, ctx.comm());
  int any = found >= 0 ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MIN, ctx.comm());
  return usable && any ? found : -1;
}

bool has_field(const std::vector<TrajectoryField>& f, const std::string& name) {
  return std::any_of(f.begin(), f.end(), [&](const TrajectoryField& x) { return x.name == name; });
}

}  // namespace

Trajectory::Trajectory(StudyOutput& out, hid_t run_group, Model& model) : out_(out), model_(model) {
  layout_ = io::state_rows(model, out.ctx());
  fields_ = model.trajectory_fields();
  if (fields_.empty())
    fields_.push_back({"state", model.state_dim_per_component(), "1", "the raw state rows (see final_state)"});
  declared_ = fields_.size();
  // H5MD particles of a rigid body: its attitude as `orientation` where the model's state holds one
  // and the model does not write it itself.
  orientation_block_ = has_field(fields_, "orientation") ? -1 : orientation_block(model, layout_, out.ctx());
  if (orientation_block_ >= 0)
    fields_.push_back({"orientation", 9, "1",
                       "rotation matrix Q (body to space) of block '" +
                           model.space().blocks()[static_cast<std::size_t>(orientation_block_)].label +
                           "', row-major, read from the state"});
  const std::string group = "particles/" + model.particle_group();
  root_ = h5::create_group(run_group, group);
  {
    h5::Handle box = h5::create_group(root_, "box");
    h5::attr(box, "dimension", static_cast<std::int64_t>(3));
    h5::attr(box, "boundary", std::vector<std::string>{"none", "none", "none"});
  }
  for (const auto& fld : fields_) {
    h5::Handle g = h5::create_group(root_, fld.name);
    writers_.emplace_back(out.file(), g, "value", layout_.global_rows, static_cast<std::size_t>(fld.dim));
    try {
      io::write_unit(writers_.back().id(), out.units().of(fld.unit));
    } catch (const std::invalid_argument& e) {
      throw UsageError("units = si: the " + model.name() + " model's field '" + fld.name + "' is in '" + fld.unit +
                       "', not an SI unit (" + e.what() + "); use units = dimensionless");
    }
    if (!fld.description.empty()) h5::attr(writers_.back().id(), "description", fld.description);
    if (fld.name == "orientation")
      h5::attr(writers_.back().id(), "representation",
               fld.dim == 9 ? "rotation_matrix: 3x3 body-to-space rotation matrix, row-major (9 values per body)"
               : fld.dim == 4 ? "quaternion: unit quaternion (w, x, y, z)"
                              : "see description");
  }
  // H5MD `position` of a rigid body about a fixed point (heavy top): its centre of mass, the same
  // element under the name H5MD readers look for (a hard link)
  if (!has_field(fields_, "position") && has_field(fields_, "centre_of_mass"))
    h5::hard_link(root_, "centre_of_mass", "position");
}

void Trajectory::frame(double t, const double* y, std::uint64_t step) {
  steps_.push_back(static_cast<std::int64_t>(step));
  times_.push_back(t);
  const bool mine = !layout_.replicated || out_.file().writer();
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    const std::size_t dim = static_cast<std::size_t>(fields_[i].dim);
    if (fields_[i].name == "state" && model_.trajectory_fields().empty()) {
      const auto rows = io::pack_rows(model_, layout_, y);
      writers_[i].append(layout_.row_offset, mine ? layout_.local_rows : 0, rows.data());
    } else if (i >= declared_) {  // orientation from the state: the first 9 values of each block entry
      const Block& b = model_.space().blocks()[static_cast<std::size_t>(orientation_block_)];
      buf_.assign(layout_.local_rows * dim, 0.0);
      for (std::size_t r = 0; r < b.count; ++r)
        std::copy(y + b.state_offset + r * static_cast<std::size_t>(b.state_dim),
                  y + b.state_offset + r * static_cast<std::size_t>(b.state_dim) + 9, buf_.data() + 9 * r);
      writers_[i].append(layout_.row_offset, mine ? layout_.local_rows : 0, buf_.data());
    } else {
      buf_.assign(layout_.local_rows * dim, 0.0);
      model_.trajectory_field(fields_[i].name, y, buf_.data());
      writers_[i].append(layout_.row_offset, mine ? layout_.local_rows : 0, buf_.data());
    }
  }
}

void Trajectory::finish() {
  for (std::size_t i = 0; i < fields_.size(); ++i) {
    writers_[i].close();
    h5::Handle g = h5::open_group(root_, fields_[i].name);
    h5::write_vector(out_.file(), g, "step", steps_);
    h5::Handle t = h5::write_vector(out_.file(), g, "time", times_);
    io::write_unit(t, out_.units().time());
  }
  root_.reset();
}

}  // namespace lie::studies
